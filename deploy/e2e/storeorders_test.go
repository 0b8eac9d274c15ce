package e2e

import (
	"slices"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

const (
	opListStoreOrders = "stores.orders.listStoreOrders"
	opUpdateProduct   = "stores.products.updateProduct"
)

type storeOrdersPage struct {
	Page           []orderView `json:"page"`
	IsDone         bool        `json:"isDone"`
	ContinueCursor string      `json:"continueCursor"`
}

// orderOf pays the customer's cart lines of store through the webhook and
// returns the order's id.
func (sh *shop) orderOf(t *testing.T, intent, store string, amountFils int64) string {
	t.Helper()
	p := sh.payment(intent)
	p.StoreID, p.AmountFils = store, amountFils
	if r := deliver(sh.s, processor.Event("evt_"+intent, "payment_intent.succeeded", p)); r.Status != 200 {
		t.Fatalf("webhook for %s: %d %s", intent, r.Status, r.Body)
	}
	o := okAs[orderView](t, sh.s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}))
	return o.ID
}

func idsOfOrders(os []orderView) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.ID
	}
	return out
}

// TestListStoreOrders: a store's orders, newest first, for its owner and
// administrators only; the status filter; pages that walk the list once; the
// owner does not see an order whose payment is held for review (an
// administrator does) and sees the store's terms (commission, earnings).
func TestListStoreOrders(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)  // owner-1: stores A and B; user-1's cart holds A1 x3, A2 x1, B x2
	const amountA = 8705 // A1 x3 (12.35) + A2 (40) + the 10.00 fee
	o1 := sh.orderOf(t, "pi_1", sh.storeA, amountA)
	sh.fillCart(t)
	o2 := sh.orderOf(t, "pi_2", sh.storeA, amountA)
	sh.fillCart(t)
	held := sh.orderOf(t, "pi_3", sh.storeA, 100) // paid 1.00: held for review
	sh.fillCart(t)
	o4 := sh.orderOf(t, "pi_4", sh.storeA, amountA)
	oB := sh.orderOf(t, "pi_b", sh.storeB, 8*9999+1000) // B x8 and the fee
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o2, "status": "preparing"}))
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o4, "status": "cancelled"}))

	list := func(t *testing.T, token string, more ...any) []orderView {
		t.Helper()
		var out []orderView
		cursor := any(nil)
		for range 20 {
			args := map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}}
			for i := 0; i+1 < len(more); i += 2 {
				args[more[i].(string)] = more[i+1]
			}
			p := okAs[storeOrdersPage](t, s.Query(token, opListStoreOrders, args))
			if len(p.Page) > 2 {
				t.Fatalf("a page of %d", len(p.Page))
			}
			out = append(out, p.Page...)
			if p.IsDone {
				return out
			}
			cursor = p.ContinueCursor
		}
		t.Fatal("the list never ends")
		return nil
	}
	expect := func(t *testing.T, got []orderView, want ...string) {
		t.Helper()
		if !slices.Equal(idsOfOrders(got), want) {
			t.Fatalf("orders %v, want %v", idsOfOrders(got), want)
		}
	}

	t.Run("newest first, held orders for administrators only", func(t *testing.T) {
		mine := list(t, sh.owner)
		expect(t, mine, o4, o2, o1)
		for _, o := range mine {
			if o.StoreID != sh.storeA || o.PlatformComm == nil || o.StoreEarnings == nil || *o.StoreEarnings+*o.PlatformComm != o.Total {
				t.Errorf("the owner's view of %s: %+v", o.ID, o)
			}
		}
		if mine[2].Total != 87.05 || len(mine[2].Items) != 2 || mine[2].DeliveryAddress.PhoneNumber == "" {
			t.Errorf("order 1 as its store sees it: %+v", mine[2])
		}
		expect(t, list(t, sh.admin), o4, held, o2, o1)
	})

	t.Run("by status", func(t *testing.T) {
		expect(t, list(t, sh.owner, "status", "confirmed"), o1)
		expect(t, list(t, sh.owner, "status", "preparing"), o2)
		expect(t, list(t, sh.owner, "status", "cancelled"), o4)
		expect(t, list(t, sh.owner, "status", "pending")) // the held one is not the store's yet
		expect(t, list(t, sh.admin, "status", "pending"), held)
		expect(t, list(t, sh.owner, "status", "delivered"))
	})

	t.Run("a settled held order reaches the store", func(t *testing.T) {
		st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": held, "status": "confirmed"}))
		expect(t, list(t, sh.owner), o4, held, o2, o1)
		expect(t, list(t, sh.owner, "status", "confirmed"), held, o1)
	})

	t.Run("each store its own", func(t *testing.T) {
		p := okAs[storeOrdersPage](t, s.Query(sh.owner, opListStoreOrders, map[string]any{"storeId": sh.storeB, "paginationOpts": map[string]any{"numItems": 10}}))
		if !p.IsDone {
			t.Fatal("store B's one order fills more than a page")
		}
		expect(t, p.Page, oB)
	})

	t.Run("who may", func(t *testing.T) {
		args := map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10}}
		newStore(t, s, sh.admin, "Elsewhere", "owner-2", "", "")
		for _, tok := range []string{s.Token("owner-2"), sh.user, s.Token("user-2")} {
			expectError(t, s.Query(tok, opListStoreOrders, args), "PERMISSION_DENIED")
		}
		expectError(t, s.Query("", opListStoreOrders, args), "UNAUTHENTICATED")
		expectError(t, s.Query(sh.owner, opListStoreOrders, map[string]any{"storeId": missingLike(sh.storeA), "paginationOpts": map[string]any{"numItems": 10}}), "NOT_FOUND")
		for _, c := range []struct {
			field string
			args  map[string]any
		}{
			{"status", map[string]any{"storeId": sh.storeA, "status": "lost", "paginationOpts": map[string]any{"numItems": 10}}},
			{"storeId", map[string]any{"storeId": sh.productA1, "paginationOpts": map[string]any{"numItems": 10}}},
			{"paginationOpts", map[string]any{"storeId": sh.storeA}},
		} {
			expectError(t, s.Query(sh.owner, opListStoreOrders, c.args), "INVALID_ARGUMENT", c.field)
		}
	})
}

// TestProductPriceChanges: updateProduct for the store's owner only, each
// argument checked; a new price never changes an order already made, nor a
// cart line already added (an order made from that line is priced as the
// line), until the product is added to the cart again.
func TestProductPriceChanges(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s) // user-1's cart: A1 x3 (12.35), A2 x1 (40), B x2 (99.99)
	order := sh.orderOf(t, "pi_1", sh.storeA, 8705)
	update := func(token, product string, more ...any) st.Result {
		args := map[string]any{"productId": product}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		return s.Mutation(token, opUpdateProduct, args)
	}
	product := func(t *testing.T, id string) productView {
		t.Helper()
		for _, p := range okAs[[]productView](t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": sh.storeA})) {
			if p.ID == id {
				return p
			}
		}
		for _, p := range okAs[[]productView](t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": sh.storeB})) {
			if p.ID == id {
				return p
			}
		}
		t.Fatalf("product %s is not listed", id)
		return productView{}
	}

	t.Run("the owner changes a product", func(t *testing.T) {
		p := okAs[productView](t, update(sh.owner, sh.productA1, "price", 20, "name", " Sourdough "))
		if p.ID != sh.productA1 || p.Price != 20 || p.Name != "Sourdough" || !p.IsAvailable || p.StoreID != sh.storeA {
			t.Fatalf("answer: %+v", p)
		}
		if got := product(t, sh.productA1); got != p {
			t.Fatalf("listed: %+v, answered %+v", got, p)
		}
		p = okAs[productView](t, update(sh.owner, sh.productA2, "isAvailable", false))
		if p.IsAvailable || p.Price != 40 || p.Name != "Cake" {
			t.Fatalf("made unavailable: %+v", p)
		}
		expectError(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA2, "quantity": 1}), "FAILED_PRECONDITION")
		okAs[productView](t, update(sh.owner, sh.productA2, "isAvailable", true))
	})

	t.Run("the order keeps its prices", func(t *testing.T) {
		var o *orderView
		for _, x := range myOrders(t, s, sh.user) {
			if x.ID == order {
				o = &x
			}
		}
		// The unit price of A1 in an order (lines added within one millisecond
		// may come in either order).
		unitPrice := func(o orderView) float64 {
			for _, it := range o.Items {
				if it.ProductID == sh.productA1 {
					return it.UnitPrice
				}
			}
			return -1
		}
		if o == nil || o.Subtotal != 77.05 || o.Total != 87.05 || unitPrice(*o) != 12.35 {
			t.Fatalf("the order after the price change: %+v", o)
		}
		page := okAs[storeOrdersPage](t, s.Query(sh.owner, opListStoreOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10}}))
		if len(page.Page) != 1 || unitPrice(page.Page[0]) != 12.35 || page.Page[0].Total != 87.05 {
			t.Fatalf("the store's list after the price change: %+v", page.Page)
		}
	})

	t.Run("a cart line keeps its price until added again", func(t *testing.T) {
		okAs[productView](t, update(sh.owner, sh.productB, "price", 120, "name", "Red Roses"))
		line := lineOf(myCart(t, s, sh.user, ""), sh.productB)
		if line == nil || line.UnitPrice != 99.99 || line.Name != "Roses" || line.Quantity != 2 {
			t.Fatalf("the line after the price change: %+v", line)
		}
		// An order from that line is priced as the line: the amount paid for
		// 2 x 99.99 + 10 matches it, so it is paid, not held.
		oB := sh.orderOf(t, "pi_b1", sh.storeB, 2*9999+1000)
		got := okAs[orderView](t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_b1"}))
		if got.ID != oB || got.PaymentStatus != "paid" || got.Items[0].UnitPrice != 99.99 || got.Subtotal != 199.98 {
			t.Fatalf("the order from the old line: %+v", got)
		}
		// Added again: the new price.
		okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productB, "quantity": 1}))
		if line := lineOf(myCart(t, s, sh.user, ""), sh.productB); line == nil || line.UnitPrice != 120 || line.Name != "Red Roses" {
			t.Fatalf("added after the change: %+v", line)
		}
		okAs[productView](t, update(sh.owner, sh.productB, "price", 110))
		if line := lineOf(myCart(t, s, sh.user, ""), sh.productB); line == nil || line.UnitPrice != 120 {
			t.Fatalf("the line after a second change: %+v", line)
		}
		okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productB, "quantity": 1}))
		if line := lineOf(myCart(t, s, sh.user, ""), sh.productB); line == nil || line.UnitPrice != 110 || line.Quantity != 2 {
			t.Fatalf("added again: %+v", line)
		}
		if c := myCart(t, s, sh.user, sh.storeB); c.Subtotal != 220 {
			t.Fatalf("the cart's subtotal: %+v", c)
		}
	})

	t.Run("who may", func(t *testing.T) {
		newStore(t, s, sh.admin, "Elsewhere", "owner-2", "", "")
		for _, tok := range []string{s.Token("owner-2"), sh.user, sh.admin} {
			expectError(t, update(tok, sh.productA1, "price", 1), "PERMISSION_DENIED")
		}
		expectError(t, update("", sh.productA1, "price", 1), "UNAUTHENTICATED")
		if p := product(t, sh.productA1); p.Price != 20 {
			t.Fatalf("a refused update changed the price: %+v", p)
		}
	})

	t.Run("every bad argument", func(t *testing.T) {
		for _, c := range []struct {
			name, code, field string
			more              []any
		}{
			{"a zero price", "INVALID_ARGUMENT", "price", []any{"price", 0}},
			{"a negative price", "INVALID_ARGUMENT", "price", []any{"price", -5}},
			{"a price above the maximum", "INVALID_ARGUMENT", "price", []any{"price", 1000000.01}},
			{"a price in thousandths", "INVALID_ARGUMENT", "price", []any{"price", 1.234}},
			{"a price as text", "INVALID_ARGUMENT", "price", []any{"price", "12"}},
			{"a blank name", "INVALID_ARGUMENT", "name", []any{"name", "  "}},
			{"isAvailable as text", "INVALID_ARGUMENT", "isAvailable", []any{"isAvailable", "no"}},
			{"an unknown argument", "INVALID_ARGUMENT", "storeId", []any{"storeId", sh.storeA}},
			{"nothing to change", "INVALID_ARGUMENT", "name", nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, update(sh.owner, sh.productA1, c.more...), c.code, c.field)
			})
		}
		expectError(t, update(sh.owner, missingLike(sh.productA1), "price", 1), "NOT_FOUND")
		expectError(t, update(sh.owner, sh.storeA, "price", 1), "INVALID_ARGUMENT", "productId")
		if p := product(t, sh.productA1); p.Price != 20 || p.Name != "Sourdough" {
			t.Fatalf("refused updates changed the product: %+v", p)
		}
	})
}
