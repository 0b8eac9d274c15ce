package domain

import (
	"strings"
	"testing"

	"marketplace/libs/apperr"
)

// TestCartQuantityCap: a line never holds more than MaxQuantity of its
// product; the storage's conditional update (quantity <= MaxQuantity-add)
// holds the same bound against concurrent adds.
func TestCartQuantityCap(t *testing.T) {
	cases := []struct {
		have, add int
		want      bool
	}{
		{0, 99, true}, {0, 1, true}, {98, 1, true}, {50, 49, true}, {1, 98, true},
		{99, 1, false}, {98, 2, false}, {50, 50, false}, {1, 99, false}, {99, 99, false},
	}
	for _, c := range cases {
		if got := CanTake(c.have, c.add); got != c.want {
			t.Errorf("CanTake(%d, %d) = %v, want %v", c.have, c.add, got, c.want)
		}
	}
	if err := TooMany(); !apperr.Is(err, apperr.FailedPrecondition) || err.Error() == "" || !strings.Contains(apperr.From(err).Message, "at most 99 of one product") {
		t.Errorf("TooMany() = %v", err)
	}
}

func TestCartLineCap(t *testing.T) {
	for _, n := range []int64{0, 1, MaxCartLines - 1} {
		if err := CheckNewLine(n); err != nil {
			t.Errorf("a cart of %d lines refuses a new one: %v", n, err)
		}
	}
	for _, n := range []int64{MaxCartLines, MaxCartLines + 1} {
		err := CheckNewLine(n)
		if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Message != "a cart holds at most 100 different products" {
			t.Errorf("a cart of %d lines takes a new one: %v", n, err)
		}
	}
}

func TestCheckAddable(t *testing.T) {
	if err := CheckAddable(Available{ProductID: "p1", Exists: true, IsAvailable: true}); err != nil {
		t.Errorf("an available product: %v", err)
	}
	if err := CheckAddable(Available{ProductID: "p1"}); !apperr.Is(err, apperr.NotFound) || apperr.From(err).Message != "product p1 does not exist" {
		t.Errorf("a missing product: %v", err)
	}
	if err := CheckAddable(Available{ProductID: "p1", Exists: true}); !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Message != "product p1 is not available" {
		t.Errorf("an unavailable product: %v", err)
	}
}

func TestCheckRemovable(t *testing.T) {
	l := CartItem{ID: "c1", CustomerID: "cust1"}
	if err := l.CheckRemovable("cust1"); err != nil {
		t.Errorf("own line: %v", err)
	}
	if err := l.CheckRemovable("cust2"); !apperr.Is(err, apperr.PermissionDenied) || apperr.From(err).Message != "cart item c1 is in another customer's cart" {
		t.Errorf("another's line: %v", err)
	}
}

func TestCartOf(t *testing.T) {
	c := CartOf(nil)
	if c.Items == nil || len(c.Items) != 0 || c.Subtotal != 0 {
		t.Fatalf("empty cart: %+v", c)
	}
	c = CartOf([]CartItem{{ID: "a", ProductID: "p1", StoreID: "s1", Name: "Tea", UnitPrice: 10, Quantity: 1}, {ID: "b", UnitPrice: 20, Quantity: 1}, {ID: "c", UnitPrice: 12_35, Quantity: 3}})
	if c.Subtotal != 37.35 || len(c.Items) != 3 || c.Items[0] != (CartItemView{ID: "a", ProductID: "p1", StoreID: "s1", Name: "Tea", UnitPrice: 0.1, Quantity: 1}) {
		t.Fatalf("cart: %+v", c)
	}
}

func TestSameLines(t *testing.T) {
	a := []CartItem{{ID: "a", Quantity: 1, UnitPrice: 100}, {ID: "b", Quantity: 2, UnitPrice: 50}}
	same := []CartItem{{ID: "a", Quantity: 1, UnitPrice: 100, Name: "renamed"}, {ID: "b", Quantity: 2, UnitPrice: 50}}
	if !SameLines(a, same) || !SameLines(nil, nil) {
		t.Error("equal lines differ")
	}
	for name, b := range map[string][]CartItem{
		"a line more":    append(append([]CartItem{}, a...), CartItem{ID: "c", Quantity: 1}),
		"a line less":    a[:1],
		"more of a line": {{ID: "a", Quantity: 2, UnitPrice: 100}, a[1]},
		"a new price":    {{ID: "a", Quantity: 1, UnitPrice: 90}, a[1]},
		"another line":   {{ID: "x", Quantity: 1, UnitPrice: 100}, a[1]},
	} {
		if SameLines(a, b) {
			t.Errorf("%s: the same lines", name)
		}
	}
}
