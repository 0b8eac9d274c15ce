package e2e

import (
	"fmt"
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestCartLineCapHoldsUnderConcurrentAdds: first adds of different products
// racing at the cap of 100 lines (customers.MaxCartLines) leave at most 100
// lines, the rest refused with FAILED_PRECONDITION. The count and the insert
// alone are write skew (each add counts 99 and inserts a line of its own, two
// documents that do not conflict), on MongoDB and on the embedded engine since
// its writers run in parallel.
func TestCartLineCapHoldsUnderConcurrentAdds(t *testing.T) {
	const maxLines, racers = 100, 24
	s := st.Start(t)
	admin, owner := s.Token("admin-1", "admin"), s.Token("owner-1")
	shop := newStore(t, s, admin, "Everything", "owner-1", "", "")
	products := make([]string, maxLines-1+racers)
	for i := range products {
		products[i] = okID(t, s.Mutation(owner, "stores.products.createProduct",
			map[string]any{"storeId": shop, "name": fmt.Sprintf("Product %d", i), "price": 1, "isAvailable": true}))
	}
	dana := s.Token("user-dana")
	newProfile(t, s, dana, "Dana")
	add := func(productID string) st.Result {
		return s.Mutation(dana, opAddItem, map[string]any{"productId": productID, "quantity": 1})
	}
	// 98 lines one by one, then the last free line and the racers' together.
	for _, p := range products[:maxLines-2] {
		okID(t, add(p))
	}
	// Rounds: the racers' lines are removed again after each.
	rest := products[maxLines-2:]
	for round := 0; round < 15 && !t.Failed(); round++ {
		ok := st.CountOK(t, st.Concurrently(len(rest), func(i int) st.Result { return add(rest[i]) }), "FAILED_PRECONDITION")
		c := myCart(t, s, dana, "")
		if n := len(c.Items); n != maxLines || ok != 2 {
			t.Errorf("round %d: %d concurrent first adds at %d lines: %d succeeded and the cart holds %d lines, want 2 and %d", round, len(rest), maxLines-2, ok, n, maxLines)
		}
		for _, p := range rest {
			if l := lineOf(c, p); l != nil {
				st.MustOK(t, s.Mutation(dana, opRemoveItem, map[string]any{"itemId": l.ID}))
			}
		}
	}
}
