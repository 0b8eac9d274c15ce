package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestDashboardInBrowser drives the owner's dashboard and the notifications
// rendered from their params (issue 32, items 4 and 6;
// web/console/e2e/dashboard.test.mjs) in Debian's Chromium against the
// whole system. owner-7's Bakery (its only store) has three orders paid
// today through the processor's webhook: one delivered (its earnings held,
// so something is to be released), one being prepared, one cancelled; its
// payout bank account was saved. In the browser: today's sales, this week's
// and this month's equal the sum of the two orders not cancelled; the
// day's row of the chart's figures too; the week view; the top product and
// the orders by status agree with the orders; the releases are the API's;
// in Arabic the owner's notifications read in Arabic, with Latin only in
// isolated names and figures; the unread badge counts as the API does;
// axe-core on each page, at 1280 and 390 px wide.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	// The sales summary's cap lowered to 3: Bakery's 3 orders are read,
	// Busy's 4 refused (too_many_orders), its dashboard partial.
	s := st.Start(t, st.WithEnv("SALES_SUMMARY_MAX_ORDERS", "3"))
	admin, owner, user := s.Token("admin-1", "admin"), s.Token("owner-7"), s.Token("user-7")
	initConfig(t, s)
	store := newStore(t, s, admin, "Bakery", "owner-7", "", "")
	product := func(name string, price float64) string {
		return okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": name, "price": price}))
	}
	tea, cake := product("Karak tea", 4.5), product("كعكة Saffron", 40)
	customer := okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Noor", "phone": "+971501111111"}))
	placeOrder := func(store, intent string, fils int64, lines ...any) *orderView {
		t.Helper()
		for i := 0; i < len(lines); i += 2 {
			okID(t, s.Mutation(user, "customers.cart.addItem", map[string]any{"productId": lines[i], "quantity": lines[i+1]}))
		}
		body := processor.Event("evt_"+intent, "payment_intent.succeeded", processor.Payment{
			IntentID: intent, AmountFils: fils, CustomerID: customer, StoreID: store,
			Address:      processor.Address{FullAddress: "Villa 7, Street 3", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
			DeliveryType: "standard", DeliveryFee: "10.00",
		})
		if r := deliver(s, body); r.Status != 200 {
			t.Fatalf("order %s: %d %s", intent, r.Status, r.Body)
		}
		o := orderOf(t, s, admin, intent)
		if o == nil || o.Status != "confirmed" {
			t.Fatalf("order %s: %+v", intent, o)
		}
		return o
	}
	order := func(intent string, fils int64, lines ...any) *orderView {
		return placeOrder(store, intent, fils, lines...)
	}
	delivered := order("pi_dash_1", 6350, tea, 3, cake, 1) // 13.50 + 40.00 + 10.00
	preparing := order("pi_dash_2", 1900, tea, 2)          // 9.00 + 10.00
	cancelled := order("pi_dash_3", 9000, cake, 2)         // 80.00 + 10.00
	moveOrder(t, s, owner, delivered.ID)
	st.MustOK(t, s.Mutation(owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": preparing.ID, "status": "preparing"}))
	st.MustOK(t, s.Mutation(owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": cancelled.ID, "status": "cancelled"}))
	st.MustOK(t, s.Mutation(owner, "stores.payouts.setBankAccount", map[string]any{"storeId": store,
		"bankDetails": map[string]any{"IBAN": secondIBAN, "bankName": "ADCB", "accountHolderName": "Sara Al Marri"}}))
	w := &payoutsWorld{s: s, admin: admin, owner: owner, store: store}
	eventually(t, "the delivered order's earnings held", func() bool { return w.getWallet(t, owner, store).TotalOrders == 1 })
	eventually(t, "the owner's notifications", func() bool {
		ns := paramInbox(t, s, owner)
		news := 0
		for _, n := range ns {
			if n.Type == "new_order" {
				news++
			}
		}
		return noteOf(ns, "bank_account_changed") != nil && news == 3
	})
	// Busy: 4 orders today, one over the cap.
	busy := newStore(t, s, admin, "Busy", "owner-8", "", "")
	bun := okID(t, s.Mutation(s.Token("owner-8"), "stores.products.createProduct", map[string]any{"storeId": busy, "name": "Bun", "price": 5}))
	for i := range 4 {
		placeOrder(busy, fmt.Sprintf("pi_busy_%d", i), 1500, bun, 1) // 5.00 + 10.00
	}
	gross := math.Round((delivered.Total+preparing.Total)*100) / 100
	status, _ := json.Marshal(map[string]int{"pending": 0, "confirmed": 0, "preparing": 1, "out_for_delivery": 0, "delivered": 1, "cancelled": 1})

	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+owner,
		"BUSY_OWNER_TOKEN="+s.Token("owner-8"),
		"PREPARING_ORDER="+preparing.ID,
		"STORE_ID="+store,
		fmt.Sprintf("TODAY_GROSS=%.2f", gross),
		"TODAY_ORDERS=2",
		"TOP_PRODUCT="+cake,
		"TOP_NAME=كعكة Saffron",
		"BY_STATUS="+string(status),
		"IBAN_LAST4="+secondIBAN[len(secondIBAN)-4:],
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "dashboard.test.mjs"))
}
