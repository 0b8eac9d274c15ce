package e2e

import (
	"fmt"
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestCartLineCapHoldsUnderConcurrentAdds: first adds of different products
// racing up to the cap of 100 lines (customers.MaxCartLines) leave exactly
// 100 lines, the rest refused with FAILED_PRECONDITION. The count and the
// insert alone are write skew (near the cap, each add counts 99 and inserts a
// line of its own, documents that do not conflict), on MongoDB and on the
// embedded engine since its writers run in parallel: without the cart's guard
// document, 3 of 4 such carts ended with 101 or 102 lines.
func TestCartLineCapHoldsUnderConcurrentAdds(t *testing.T) {
	const maxLines, customers = 100, 4
	s := st.Start(t)
	admin, owner := s.Token("admin-1", "admin"), s.Token("owner-1")
	shop := newStore(t, s, admin, "Everything", "owner-1", "", "")
	products := make([]string, maxLines+40)
	for i := range products {
		products[i] = okID(t, s.Mutation(owner, "stores.products.createProduct",
			map[string]any{"storeId": shop, "name": fmt.Sprintf("Product %d", i), "price": 1, "isAvailable": true}))
	}
	for c := range customers {
		token := s.Token(fmt.Sprintf("user-cart-%d", c))
		newProfile(t, s, token, fmt.Sprintf("Customer %d", c))
		ok := st.CountOK(t, st.Concurrently(len(products), func(i int) st.Result {
			return s.Mutation(token, opAddItem, map[string]any{"productId": products[i], "quantity": 1})
		}), "FAILED_PRECONDITION")
		if n := len(myCart(t, s, token, "").Items); n != maxLines || ok != maxLines {
			t.Errorf("customer %d: %d concurrent first adds to an empty cart: %d succeeded and the cart holds %d lines, want %d and %d",
				c, len(products), ok, n, maxLines, maxLines)
		}
	}
}
