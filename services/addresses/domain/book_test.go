package domain

import (
	"fmt"
	"testing"

	"marketplace/libs/apperr"
)

func ptr[T any](v T) *T { return &v }

// book is a customer's book of active addresses adr_1..adr_n, created in
// that order, the default (if any) at index dflt.
func book(n, dflt int) *Book {
	b := &Book{CustomerID: "cus_1", Count: n}
	for i := 1; i <= n; i++ {
		b.Addresses = append(b.Addresses, Address{ID: fmt.Sprintf("adr_%d", i), CustomerID: "cus_1", City: "cit_1", Area: "are_1",
			IsActive: true, IsDefault: i == dflt, CreationTime: int64(100 * i)})
	}
	return b
}

// defaults are the ids of the book's defaults.
func defaults(b *Book) []string {
	var out []string
	for _, a := range b.Addresses {
		if a.IsDefault {
			out = append(out, a.ID)
		}
	}
	return out
}

// wantDefault checks that the book has exactly the default id ("" none).
func wantDefault(t *testing.T, b *Book, id string) {
	t.Helper()
	d := defaults(b)
	switch {
	case id == "" && len(d) != 0, id != "" && (len(d) != 1 || d[0] != id):
		t.Fatalf("defaults %v, want [%s]", d, id)
	}
}

func wantCode(t *testing.T, err error, code apperr.Code, msg string) {
	t.Helper()
	e := apperr.From(err)
	if e == nil || e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("error %v, want %s %q", err, code, msg)
	}
}

func TestAddTheFirstAddressBecomesTheDefaultUnlessSaid(t *testing.T) {
	for _, c := range []struct {
		name  string
		have  int // addresses, the first the default
		ask   *bool
		dflt  string
		count int
	}{
		{"first, not said", 0, nil, "adr_new", 1},
		{"first, said no", 0, ptr(false), "", 1},
		{"first, said yes", 0, ptr(true), "adr_new", 1},
		{"second, not said", 1, nil, "adr_1", 2},
		{"second, said yes: the previous default is unset", 1, ptr(true), "adr_new", 2},
		{"second, said no", 1, ptr(false), "adr_1", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := book(c.have, 1)
			if err := b.Add(Address{ID: "adr_new", IsActive: true, IsDefault: true}, c.ask, 7); err != nil {
				t.Fatal(err)
			}
			wantDefault(t, b, c.dflt)
			if b.Count != c.count || b.Find("adr_new") == nil {
				t.Fatalf("count %d (want %d), added %v", b.Count, c.count, b.Find("adr_new") != nil)
			}
			if c.have == 1 && c.dflt == "adr_new" && b.Find("adr_1").UpdatedAt != 7 {
				t.Fatal("the unset default keeps its updatedAt")
			}
		})
	}
}

func TestAddNoDefaultYetButAddressesMakesTheNewOneDefault(t *testing.T) {
	b := book(2, 0) // addresses, none the default (it was cleared)
	if err := b.Add(Address{ID: "adr_new", IsActive: true}, nil, 1); err != nil {
		t.Fatal(err)
	}
	wantDefault(t, b, "adr_new")
}

func TestAddAtMostMaxAddresses(t *testing.T) {
	b := book(MaxAddresses-1, 1)
	if err := b.Add(Address{ID: "adr_last", IsActive: true}, nil, 1); err != nil {
		t.Fatalf("the %dth refused: %v", MaxAddresses, err)
	}
	before := len(b.Addresses)
	err := b.Add(Address{ID: "adr_over", IsActive: true}, ptr(true), 1)
	wantCode(t, err, apperr.FailedPrecondition, fmt.Sprintf("a customer keeps at most %d addresses", MaxAddresses))
	if len(b.Addresses) != before || b.Count != MaxAddresses {
		t.Fatalf("a refused add changed the book: %d addresses, count %d", len(b.Addresses), b.Count)
	}
	wantDefault(t, b, "adr_1")
	// The count kept decides (inactive addresses count too).
	full := &Book{CustomerID: "cus_1", Count: MaxAddresses}
	wantCode(t, full.Add(Address{ID: "adr_x", IsActive: true}, nil, 1), apperr.FailedPrecondition, "")
}

func TestDeleteHandsTheDefaultOver(t *testing.T) {
	for _, c := range []struct {
		name     string
		b        func() *Book
		del      string
		dflt     string
		addrs    int
		inactive string
	}{
		{"a default goes: the most recent other active one", func() *Book { return book(3, 1) }, "adr_1", "adr_3", 2, ""},
		{"the most recent is inactive: the next", func() *Book {
			b := book(3, 1)
			b.Find("adr_3").IsActive = false
			return b
		}, "adr_1", "adr_2", 2, ""},
		{"the last goes: none", func() *Book { return book(1, 1) }, "adr_1", "", 0, ""},
		{"not the default: it stays", func() *Book { return book(3, 1) }, "adr_3", "adr_1", 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.b()
			n := b.Count
			if err := b.Delete(c.del, 5); err != nil {
				t.Fatal(err)
			}
			wantDefault(t, b, c.dflt)
			if len(b.Addresses) != c.addrs || b.Find(c.del) != nil || b.Count != n-1 {
				t.Fatalf("addresses %d (want %d), count %d (want %d)", len(b.Addresses), c.addrs, b.Count, n-1)
			}
		})
	}
	b := book(2, 1)
	wantCode(t, b.Delete("adr_9", 1), apperr.NotFound, "address adr_9 does not exist")
	if b.Count != 2 {
		t.Fatal("a refused delete changed the count")
	}
}

func TestSetDefault(t *testing.T) {
	b := book(3, 1)
	if err := b.SetDefault("adr_2", 9); err != nil {
		t.Fatal(err)
	}
	wantDefault(t, b, "adr_2")
	if b.Find("adr_1").UpdatedAt != 9 || b.Find("adr_2").UpdatedAt != 9 {
		t.Fatal("updatedAt not moved with the default")
	}
	b.Find("adr_3").IsActive = false
	wantCode(t, b.SetDefault("adr_3", 9), apperr.FailedPrecondition, "address adr_3 is inactive and cannot be the default")
	wantDefault(t, b, "adr_2")
	wantCode(t, b.SetDefault("adr_9", 9), apperr.NotFound, "address adr_9 does not exist")
}

// An address the operation read active, then deleted or deactivated before
// the transaction, is refused as changed meanwhile (not as missing).
func TestSetDefaultAsSeen(t *testing.T) {
	b := book(3, 1)
	if err := b.SetDefaultAsSeen("adr_2", 9); err != nil {
		t.Fatal(err)
	}
	wantDefault(t, b, "adr_2")
	b.Find("adr_3").IsActive = false
	wantCode(t, b.SetDefaultAsSeen("adr_3", 9), apperr.FailedPrecondition, "address adr_3 was deleted or deactivated meanwhile")
	wantCode(t, b.SetDefaultAsSeen("adr_9", 9), apperr.FailedPrecondition, "address adr_9 was deleted or deactivated meanwhile")
	wantDefault(t, b, "adr_2")
	a := b.Find("adr_3")
	wantCode(t, a.CheckCanBeDefault(), apperr.FailedPrecondition, "address adr_3 is inactive and cannot be the default")
	if err := b.Find("adr_1").CheckCanBeDefault(); err != nil {
		t.Fatal(err)
	}
}

func TestUpdateMovesTheDefault(t *testing.T) {
	for _, c := range []struct {
		name   string
		id     string
		change Change
		dflt   string
		code   apperr.Code
	}{
		{"isDefault true: the previous default is unset", "adr_2", Change{IsDefault: ptr(true)}, "adr_2", ""},
		{"isDefault true on the default: unchanged", "adr_1", Change{IsDefault: ptr(true)}, "adr_1", ""},
		{"isDefault false on the default: none", "adr_1", Change{IsDefault: ptr(false)}, "", ""},
		{"isDefault false on another: unchanged", "adr_2", Change{IsDefault: ptr(false)}, "adr_1", ""},
		{"the default deactivated: hands over", "adr_1", Change{IsActive: ptr(false)}, "adr_3", ""},
		{"another deactivated: the default stays", "adr_3", Change{IsActive: ptr(false)}, "adr_1", ""},
		{"deactivated and isDefault false: hands over", "adr_1", Change{IsActive: ptr(false), IsDefault: ptr(false)}, "adr_3", ""},
		{"an inactive address cannot be the default", "adr_2", Change{IsActive: ptr(false), IsDefault: ptr(true)}, "adr_1", apperr.InvalidArgument},
		{"a bad coordinate", "adr_2", Change{Latitude: ptr("95")}, "adr_1", apperr.InvalidArgument},
		{"missing", "adr_9", Change{Name: ptr("x")}, "adr_1", apperr.NotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := book(3, 1)
			seen := Address{ID: c.id, City: "cit_1", Area: "are_1", IsActive: true}
			err := b.Update(c.id, c.change, seen, 3)
			if c.code != "" {
				wantCode(t, err, c.code, "")
			} else if err != nil {
				t.Fatal(err)
			}
			wantDefault(t, b, c.dflt)
		})
	}
}

func TestUpdateOfAnInactiveAddressAsDefaultIsRefusedWithItsMessage(t *testing.T) {
	b := book(2, 1)
	b.Find("adr_2").IsActive = false
	seen := *b.Find("adr_2")
	err := b.Update("adr_2", Change{IsDefault: ptr(true)}, seen, 1)
	wantCode(t, err, apperr.InvalidArgument, "isDefault: an inactive address cannot be the default")
	// Reactivated in the same change, it may be.
	if err := b.Update("adr_2", Change{IsDefault: ptr(true), IsActive: ptr(true)}, seen, 1); err != nil {
		t.Fatal(err)
	}
	wantDefault(t, b, "adr_2")
}

func TestUpdateChangesOnlyTheFieldsGivenTrimmed(t *testing.T) {
	b := book(1, 1)
	a := b.Find("adr_1")
	a.Name, a.Landmark = "Home", ptr("mall")
	seen := *a
	err := b.Update("adr_1", Change{FullAddress: ptr("  12 Palm St "), City: ptr("cit_2"), Latitude: ptr(" 25.1 ")}, seen, 42)
	if err != nil {
		t.Fatal(err)
	}
	a = b.Find("adr_1")
	if a.Name != "Home" || *a.Landmark != "mall" || a.FullAddress != "12 Palm St" || a.City != "cit_2" || a.Area != "are_1" ||
		*a.Latitude != "25.1" || a.Longitude != nil || a.UpdatedAt != 42 || !a.IsActive || !a.IsDefault {
		t.Fatalf("after the update: %+v", a)
	}
}

func TestUpdateOnAChangedAddressStartsOver(t *testing.T) {
	for _, change := range []func(*Address){
		func(a *Address) { a.City = "cit_9" },
		func(a *Address) { a.Area = "are_9" },
		func(a *Address) { a.IsActive = false },
	} {
		b := book(2, 1)
		seen := *b.Find("adr_2")
		change(b.Find("adr_2"))
		if err := b.Update("adr_2", Change{IsDefault: ptr(true)}, seen, 1); err != ErrStale {
			t.Fatalf("error %v, want ErrStale", err)
		}
	}
}

func TestAnAddressIsOnlyItsCustomers(t *testing.T) {
	a := Address{ID: "adr_1", CustomerID: "cus_1"}
	if err := a.OwnedBy("cus_1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, a.OwnedBy("cus_2"), apperr.PermissionDenied, "the address belongs to another customer")
	wantCode(t, a.OwnedBy(""), apperr.PermissionDenied, "")
	if err := CheckCustomer("cus_1", "cus_1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, CheckCustomer("cus_2", "cus_1"), apperr.PermissionDenied, "customerId is not the caller's customer profile")
}

func TestNewAddress(t *testing.T) {
	a, err := NewAddress("adr_1", "cus_1", Draft{Name: " Home ", FullAddress: " 1 St ", City: "cit_1", Area: "are_1",
		Landmark: ptr(" gate "), Latitude: ptr("25.2048"), Longitude: ptr(" 55.2708")}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Home" || a.FullAddress != "1 St" || *a.Landmark != "gate" || *a.Longitude != "55.2708" || a.FlatVilaNumber != nil ||
		!a.IsActive || a.IsDefault || a.CreationTime != 5 || a.UpdatedAt != 5 || a.CustomerID != "cus_1" {
		t.Fatalf("%+v", a)
	}
	_, err = NewAddress("adr_1", "cus_1", Draft{Longitude: ptr("181")}, 5)
	wantCode(t, err, apperr.InvalidArgument, "longitude: must be between -180 and 180")
}

func TestAddressPlaceAfterAChange(t *testing.T) {
	a := Address{City: "cit_1", Area: "are_1"}
	if c, ar, ch := a.Place(Change{Name: ptr("x")}); ch || c != "cit_1" || ar != "are_1" {
		t.Fatal(c, ar, ch)
	}
	if c, ar, ch := a.Place(Change{Area: ptr("are_2")}); !ch || c != "cit_1" || ar != "are_2" {
		t.Fatal(c, ar, ch)
	}
	if c, ar, ch := a.Place(Change{City: ptr("cit_2")}); !ch || c != "cit_2" || ar != "are_1" {
		t.Fatal(c, ar, ch)
	}
}
