package domain

import (
	"fmt"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

func TestAStoreKeepsAtMostMaxProducts(t *testing.T) {
	for _, c := range []struct {
		count int64
		ok    bool
	}{{0, true}, {MaxProductsPerStore - 1, true}, {MaxProductsPerStore, false}, {MaxProductsPerStore + 5, false}} {
		p, err := NewProduct("prd_1", "sto_1", " Tea ", 150, nil, c.count, 7)
		if c.ok {
			if err != nil || p.Name != "Tea" || !p.IsAvailable || p.Price != 150 || p.StoreID != "sto_1" || p.CreationTime != 7 {
				t.Fatalf("count %d: %+v %v", c.count, p, err)
			}
			continue
		}
		wantCode(t, err, apperr.FailedPrecondition,
			fmt.Sprintf("a store keeps at most %d products: change one of them (stores.products.updateProduct) instead", MaxProductsPerStore))
		if apperr.From(err).Details["reason"] != "too_many_products" {
			t.Fatalf("details %v", apperr.From(err).Details)
		}
	}
	p, _ := NewProduct("prd_1", "sto_1", "Tea", 150, ptr(false), 0, 7)
	if p.IsAvailable {
		t.Fatal("isAvailable false not kept")
	}
}

func TestProductChange(t *testing.T) {
	wantCode(t, ProductChange{}.Check(), apperr.InvalidArgument, "nothing to change: give name, price or isAvailable")
	p := Product{ID: "prd_1", Name: "Tea", Price: 150, IsAvailable: true}
	if err := p.Apply(ProductChange{}); err == nil {
		t.Fatal("an empty change applied")
	}
	price := money.Fils(200)
	if err := p.Apply(ProductChange{Price: &price}); err != nil || p.Price != 200 || p.Name != "Tea" || !p.IsAvailable {
		t.Fatalf("%+v %v", p, err)
	}
	if err := p.Apply(ProductChange{Name: ptr(" Green tea "), IsAvailable: ptr(false)}); err != nil || p.Name != "Green tea" || p.IsAvailable || p.Price != 200 {
		t.Fatalf("%+v %v", p, err)
	}
}
