package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// Checkout through the gateway: customers.checkout.createPaymentIntent
// creates the payment intent with the processor (the all-in-one's simulator),
// the client confirms it with the processor, the processor's webhook comes
// back through the gateway and makes the order.

const opCreateIntent = "customers.checkout.createPaymentIntent"

type intentView struct {
	PaymentIntentID string  `json:"paymentIntentId"`
	ClientSecret    string  `json:"clientSecret"`
	Amount          float64 `json:"amount"`
	Currency        string  `json:"currency"`
	PublishableKey  string  `json:"publishableKey"`
	Subtotal        float64 `json:"subtotal"`
	DeliveryFee     float64 `json:"deliveryFee"`
}

// checkout is newShop's world (store A's lines worth 77.05 AED, store B's
// 199.98 AED in user-1's cart, whose profile has a phone) plus a saved
// address of user-1.
type checkout struct {
	*shop
	city, area, address string
}

func newCheckout(t *testing.T, s *st.Sys) *checkout {
	t.Helper()
	c := &checkout{shop: newShop(t, s)}
	c.city = newCity(t, s, c.admin, "Dubai", "دبي")
	c.area = newArea(t, s, c.admin, "Marina", c.city)
	c.address = createAddr(t, s, c.user, map[string]any{"customerId": c.customer, "name": "Home",
		"fullAddress": "Villa 7, Street 3 & Marina Walk", "city": c.city, "area": c.area})
	return c
}

func (c *checkout) args(store, deliveryType string) map[string]any {
	return map[string]any{"storeId": store, "addressId": c.address, "deliveryType": deliveryType}
}

// inFils is an AED number in fils.
func inFils(aed float64) int64 { return int64(math.Round(aed * 100)) }

// simulatorRecord is what the processor received for an intent.
func simulatorRecord(t *testing.T, s *st.Sys, intent string) processor.Record {
	t.Helper()
	r := st.MustOK(t, s.DoAt(s.ProcessorURL, "GET", "/simulator/payment_intents/"+intent, nil, map[string]string{"Authorization": "Bearer " + s.ProcessorKey}))
	var rec processor.Record
	r.Decode(t, &rec)
	return rec
}

// confirm is the client's step: the processor's confirm call with the
// publishable key and the intent's client secret, as the processor's browser
// SDK makes it.
func confirm(t *testing.T, s *st.Sys, in intentView, paymentMethod string) st.Result {
	t.Helper()
	form := url.Values{"payment_method": {paymentMethod}, "client_secret": {in.ClientSecret}}
	return s.DoAt(s.ProcessorURL, "POST", "/v1/payment_intents/"+in.PaymentIntentID+"/confirm", strings.NewReader(form.Encode()),
		map[string]string{"Authorization": "Bearer " + in.PublishableKey, "Content-Type": "application/x-www-form-urlencoded"})
}

func orderOf(t *testing.T, s *st.Sys, token, intent string) *orderView {
	t.Helper()
	return okAs[*orderView](t, s.Query(token, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}))
}

func TestCheckoutPaysForTheCartThroughTheProcessor(t *testing.T) {
	s := st.Start(t)
	c := newCheckout(t, s)
	if s.ProcessorURL == "" || s.ProcessorKey == "" {
		t.Fatal("the all-in-one runs no processor simulator")
	}

	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	// Store A's lines: 3 × 12.35 + 40.00 = 77.05, standard delivery 10.00.
	if inFils(in.Amount) != 87_05 || inFils(in.Subtotal) != 77_05 || inFils(in.DeliveryFee) != 10_00 || in.Currency != "aed" ||
		in.PublishableKey != st.PublishableKey || !strings.HasPrefix(in.PaymentIntentID, "pi_") ||
		!strings.HasPrefix(in.ClientSecret, in.PaymentIntentID+"_secret_") {
		t.Fatalf("intent %+v", in)
	}
	rec := simulatorRecord(t, s, in.PaymentIntentID)
	if rec.Intent.Amount != 87_05 || rec.Intent.Currency != "aed" || rec.Intent.Status != processor.StatusRequiresPaymentMethod {
		t.Fatalf("the processor holds %+v", rec.Intent)
	}
	meta := rec.Intent.Metadata
	if len(meta) != 5 || meta["customerId"] != c.customer || meta["storeId"] != c.storeA || meta["deliveryType"] != "standard" || meta["deliveryFee"] != "10.00" {
		t.Fatalf("metadata %v", meta)
	}
	var addr map[string]string
	if err := json.Unmarshal([]byte(meta["deliveryAddress"]), &addr); err != nil {
		t.Fatalf("deliveryAddress %q: %v", meta["deliveryAddress"], err)
	}
	want := map[string]string{"fullAddress": "Villa 7, Street 3 & Marina Walk", "city": c.city, "area": c.area, "phoneNumber": "+971501111111"}
	if len(addr) != len(want) {
		t.Fatalf("deliveryAddress %v, want %v", addr, want)
	}
	for k, v := range want {
		if addr[k] != v {
			t.Fatalf("deliveryAddress %v, want %v", addr, want)
		}
	}
	form, _ := url.ParseQuery(rec.Request)
	if form.Get("amount") != "8705" || form.Get("currency") != "aed" || form.Get("metadata[storeId]") != c.storeA {
		t.Fatalf("the processor received %q", rec.Request)
	}
	if orderOf(t, s, c.user, in.PaymentIntentID) != nil {
		t.Fatal("an order exists before the payment")
	}

	// The client pays; the processor's webhook makes the order.
	r := confirm(t, s, in, processor.CardSucceeds)
	if r.Status != 200 || r.Header.Get("Simulator-Webhook-Status") != "200" {
		t.Fatalf("confirm: %d %s (webhook %s)", r.Status, r.Body, r.Header.Get("Simulator-Webhook-Status"))
	}
	o := orderOf(t, s, c.user, in.PaymentIntentID)
	if o == nil {
		t.Fatal("no order after the payment")
	}
	if inFils(o.Total) != 87_05 || inFils(o.Subtotal) != 77_05 || inFils(o.DeliveryFee) != 10_00 || o.AmountPaid == nil || inFils(*o.AmountPaid) != 87_05 ||
		o.PaymentStatus != "paid" || o.Status != "confirmed" || o.PaymentMethod != "card" || o.StoreID != c.storeA || o.DeliveryType != "standard" ||
		len(o.Items) != 2 || o.DeliveryAddress.City != c.city || o.DeliveryAddress.Area != c.area || o.DeliveryAddress.PhoneNumber != "+971501111111" {
		t.Fatalf("order %+v", o)
	}
	rec = simulatorRecord(t, s, in.PaymentIntentID)
	if len(rec.Deliveries) != 1 || rec.Deliveries[0].Type != processor.EventSucceeded || rec.Deliveries[0].Body != "Order created: "+o.ID {
		t.Fatalf("deliveries %+v", rec.Deliveries)
	}
	// The store's lines left the cart; the other store's stayed.
	if cart := myCart(t, s, c.user, ""); len(cart.Items) != 1 || cart.Items[0].StoreID != c.storeB {
		t.Fatalf("cart after the order: %+v", cart)
	}
	// Paid once: the processor refuses a second confirmation.
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 400 || !strings.Contains(string(r.Body), "payment_intent_unexpected_state") {
		t.Fatalf("second confirm: %d %s", r.Status, r.Body)
	}

	// Store B: 2 × 99.99 = 199.98, free standard delivery from 100 AED,
	// express 20 AED whatever the subtotal.
	std := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeB, "standard")))
	exp := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeB, "express")))
	if inFils(std.Amount) != 199_98 || inFils(std.DeliveryFee) != 0 || inFils(exp.Amount) != 219_98 || inFils(exp.DeliveryFee) != 20_00 {
		t.Fatalf("store B: standard %+v, express %+v", std, exp)
	}
	if m := simulatorRecord(t, s, std.PaymentIntentID).Intent.Metadata; m["deliveryFee"] != "0.00" || m["deliveryType"] != "standard" {
		t.Fatalf("free delivery metadata %v", m)
	}
	if r := confirm(t, s, exp, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm express: %d %s", r.Status, r.Body)
	}
	if o := orderOf(t, s, c.user, exp.PaymentIntentID); o == nil || inFils(o.Total) != 219_98 || inFils(o.DeliveryFee) != 20_00 || o.PaymentStatus != "paid" || o.DeliveryType != "express" {
		t.Fatalf("express order %+v", o)
	}
}

// A declined card: the processor's payment_failed webhook is handled (the
// customer is told), no order is made, the cart stays, and the same intent
// can be paid with another card. A cart changed before paying is held.
func TestCheckoutDeclinedPayment(t *testing.T) {
	s := st.Start(t)
	c := newCheckout(t, s)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "express")))
	if inFils(in.Amount) != 97_05 {
		t.Fatalf("intent %+v", in)
	}
	r := confirm(t, s, in, processor.CardDeclined)
	if r.Status != 402 || r.Header.Get("Simulator-Webhook-Status") != "200" {
		t.Fatalf("declined confirm: %d %s (webhook %s)", r.Status, r.Body, r.Header.Get("Simulator-Webhook-Status"))
	}
	rec := simulatorRecord(t, s, in.PaymentIntentID)
	if len(rec.Deliveries) != 1 || rec.Deliveries[0].Type != processor.EventFailed || rec.Deliveries[0].Body != "Payment failure recorded" {
		t.Fatalf("deliveries %+v", rec.Deliveries)
	}
	if orderOf(t, s, c.user, in.PaymentIntentID) != nil {
		t.Fatal("an order for a declined payment")
	}
	if cart := myCart(t, s, c.user, c.storeA); len(cart.Items) != 2 {
		t.Fatalf("cart after the decline: %+v", cart)
	}
	eventually(t, "the customer's payment_failed notification", func() bool { return count(inbox(t, s, c.user), "payment_failed") == 1 })

	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("paying with another card: %d %s", r.Status, r.Body)
	}
	if o := orderOf(t, s, c.user, in.PaymentIntentID); o == nil || inFils(o.Total) != 97_05 || o.PaymentStatus != "paid" {
		t.Fatalf("order after the second card: %+v", o)
	}

	// The processor delivers out of order: a failure of the intent arriving
	// after its success is acknowledged and changes nothing. No second
	// "Payment failed" for a paid order (a failure of another intent, sent
	// after it, shows the notices flow), and the order stays paid.
	stale := c.payment(in.PaymentIntentID)
	stale.AmountFils, stale.DeliveryType, stale.DeliveryFee, stale.FailMessage = 97_05, "express", "20.00", "Your card was declined."
	for _, typ := range []string{processor.EventFailed, processor.EventCanceled} {
		if r := deliver(s, processor.Event("evt_stale_"+typ, typ, stale)); r.Status != 200 || string(r.Body) != "Payment intent already settled" {
			t.Fatalf("stale %s: %d %s", typ, r.Status, r.Body)
		}
	}
	other := c.payment("pi_other_declined")
	other.FailMessage = "Your card was declined."
	if r := deliver(s, processor.Event("evt_other_declined", processor.EventFailed, other)); r.Status != 200 || string(r.Body) != "Payment failure recorded" {
		t.Fatalf("another intent's failure: %d %s", r.Status, r.Body)
	}
	eventually(t, "the other intent's payment_failed notification", func() bool { return count(inbox(t, s, c.user), "payment_failed") >= 2 })
	time.Sleep(300 * time.Millisecond)
	if n := count(inbox(t, s, c.user), "payment_failed"); n != 2 {
		t.Fatalf("%d payment_failed notifications, want 2 (the declined card and the other intent's)", n)
	}
	if o := orderOf(t, s, c.user, in.PaymentIntentID); o == nil || o.PaymentStatus != "paid" || o.Status != "confirmed" {
		t.Fatalf("order after the stale failure: %+v", o)
	}

	// The cart changed between the intent and the payment: the order is made
	// from the cart as it is and, not matching what was paid, held for review.
	changed := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeB, "standard")))
	okID(t, s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": c.productB, "quantity": 1}))
	if r := confirm(t, s, changed, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	o := orderOf(t, s, c.user, changed.PaymentIntentID)
	if o == nil || o.PaymentStatus != "under_review" || o.PaymentReview == nil || o.PaymentReview.Reason != "amount_mismatch" ||
		inFils(o.Total) != 299_97 || inFils(o.PaymentReview.AmountPaid) != 199_98 {
		t.Fatalf("order of a changed cart %+v", o)
	}
}

// A cart that shrank after its payment intent was made: the processor
// charged the intent's amount, more than the order made from the cart as it is
// now. The order is held for review (amount_mismatch), never silently paid:
// the customer was charged for what it does not hold.
func TestCheckoutOverpaymentIsHeld(t *testing.T) {
	s := st.Start(t)
	c := newCheckout(t, s)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	if inFils(in.Amount) != 87_05 {
		t.Fatalf("intent %+v", in)
	}
	// The cake (40.00) leaves the cart: 3 × 12.35 + 10.00 = 47.05 remain.
	removed := false
	for _, l := range myCart(t, s, c.user, c.storeA).Items {
		if l.ProductID == c.productA2 {
			st.MustOK(t, s.Mutation(c.user, "customers.cart.removeItem", map[string]any{"itemId": l.ID}))
			removed = true
		}
	}
	if !removed {
		t.Fatal("the cake is not in the cart")
	}
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 || r.Header.Get("Simulator-Webhook-Status") != "200" {
		t.Fatalf("confirm: %d %s (webhook %s)", r.Status, r.Body, r.Header.Get("Simulator-Webhook-Status"))
	}
	o := orderOf(t, s, c.user, in.PaymentIntentID)
	if o == nil || o.Status != "pending" || o.PaymentStatus != "under_review" || o.PaymentReview == nil ||
		o.PaymentReview.Reason != "amount_mismatch" || inFils(o.Total) != 47_05 || inFils(o.PaymentReview.ExpectedAmount) != 47_05 ||
		inFils(o.PaymentReview.AmountPaid) != 87_05 || o.AmountPaid == nil || inFils(*o.AmountPaid) != 87_05 || len(o.Items) != 1 {
		t.Fatalf("order paid above its total: %+v", o)
	}
	eventually(t, "the administrators' payment_review notification", func() bool { return count(inbox(t, s, c.admin), "payment_review") == 1 })
}

func TestCheckoutRefusals(t *testing.T) {
	s := st.Start(t)
	c := newCheckout(t, s)
	call := func(token string, args map[string]any) st.Result { return s.Mutation(token, opCreateIntent, args) }
	with := func(key string, v any) map[string]any {
		a := c.args(c.storeA, "standard")
		a[key] = v
		return a
	}

	expectError(t, call("", c.args(c.storeA, "standard")), "UNAUTHENTICATED")
	expectError(t, call(s.Token("no-profile"), c.args(c.storeA, "standard")), "FAILED_PRECONDITION", "profile")
	expectError(t, call(c.user, with("deliveryType", "pickup")), "INVALID_ARGUMENT", "deliveryType")
	expectError(t, call(c.user, with("storeId", "not-an-id")), "INVALID_ARGUMENT", "storeId")
	expectError(t, call(c.user, with("addressId", c.storeA)), "INVALID_ARGUMENT", "addressId")

	// Addresses: someone else's is PERMISSION_DENIED, a missing one NOT_FOUND,
	// an inactive one FAILED_PRECONDITION.
	otherTok, otherCustomer := newCustomer(t, s, "user-2")
	others := createAddr(t, s, otherTok, map[string]any{"customerId": otherCustomer, "name": "Theirs", "fullAddress": "Tower 1", "city": c.city, "area": c.area})
	expectError(t, call(c.user, with("addressId", others)), "PERMISSION_DENIED")
	expectError(t, call(c.user, with("addressId", missingLike(c.address))), "NOT_FOUND", "address")
	inactive := createAddr(t, s, c.user, map[string]any{"customerId": c.customer, "name": "Old", "fullAddress": "Old flat", "city": c.city, "area": c.area})
	st.MustOK(t, s.Mutation(c.user, opUpdateAddress, map[string]any{"addressId": inactive, "isActive": false}))
	expectError(t, call(c.user, with("addressId", inactive)), "FAILED_PRECONDITION", "inactive")

	// Stores: unknown, no lines in the cart, closed.
	expectError(t, call(c.user, with("storeId", missingLike(c.storeA))), "NOT_FOUND", "store")
	empty := newStore(t, s, c.admin, "Empty Shop", "owner-1", "", "")
	expectReason(t, call(c.user, with("storeId", empty)), "FAILED_PRECONDITION", "empty_cart")
	closing := newStore(t, s, c.admin, "Night Shop", "owner-1", "", "")
	lamp := okID(t, s.Mutation(c.owner, "stores.products.createProduct", map[string]any{"storeId": closing, "name": "Lamp", "price": 30}))
	okID(t, s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": lamp, "quantity": 1}))
	st.MustOK(t, s.Mutation(c.owner, "stores.catalog.updateMyStore", map[string]any{"storeId": closing, "isOpen": false}))
	expectReason(t, call(c.user, with("storeId", closing)), "FAILED_PRECONDITION", "store_closed")

	// A product no longer available is named.
	st.MustOK(t, s.Mutation(c.owner, "stores.products.updateProduct", map[string]any{"productId": c.productA2, "isAvailable": false}))
	r := call(c.user, c.args(c.storeA, "standard"))
	expectReason(t, r, "FAILED_PRECONDITION", "unavailable_products")
	expectError(t, r, "FAILED_PRECONDITION", "Cake")
	st.MustOK(t, s.Mutation(c.owner, "stores.products.updateProduct", map[string]any{"productId": c.productA2, "isAvailable": true}))

	// No phone for the delivery.
	noPhone := s.Token("user-3")
	noPhoneCustomer := newProfile(t, s, noPhone, "No Phone")
	okID(t, s.Mutation(noPhone, "customers.cart.addItem", map[string]any{"productId": c.productA1, "quantity": 1}))
	addr3 := createAddr(t, s, noPhone, map[string]any{"customerId": noPhoneCustomer, "name": "Home", "fullAddress": "Villa 3", "city": c.city, "area": c.area})
	expectReason(t, call(noPhone, map[string]any{"storeId": c.storeA, "addressId": addr3, "deliveryType": "standard"}), "FAILED_PRECONDITION", "no_phone")

	// Past the processor's limits: a total above 999,999.99 AED, an address
	// too long for the payment's metadata.
	big := newStore(t, s, c.admin, "Gold Shop", "owner-1", "", "")
	bar := okID(t, s.Mutation(c.owner, "stores.products.createProduct", map[string]any{"storeId": big, "name": "Gold bar", "price": 1000000}))
	okID(t, s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": bar, "quantity": 1}))
	expectReason(t, call(c.user, with("storeId", big)), "FAILED_PRECONDITION", "amount_too_large")
	// Even a cart above the largest amount the platform keeps (one billion
	// AED: 11 lines of 99 bars) is too large, not an internal error.
	okID(t, s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": bar, "quantity": 98}))
	for i := range 10 {
		more := okID(t, s.Mutation(c.owner, "stores.products.createProduct", map[string]any{"storeId": big, "name": fmt.Sprintf("Gold bar %d", i), "price": 1000000}))
		okID(t, s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": more, "quantity": 99}))
	}
	expectReason(t, call(c.user, with("storeId", big)), "FAILED_PRECONDITION", "amount_too_large")
	long := createAddr(t, s, c.user, map[string]any{"customerId": c.customer, "name": "Long", "fullAddress": strings.Repeat("Long road ", 50), "city": c.city, "area": c.area})
	expectReason(t, call(c.user, with("addressId", long)), "FAILED_PRECONDITION", "address_too_long")

	// Nothing refused reached the processor: a good call still works.
	in := okAs[intentView](t, call(c.user, c.args(c.storeA, "standard")))
	if inFils(in.Amount) != 87_05 {
		t.Fatalf("intent %+v", in)
	}
}

// The processor down is UNAVAILABLE (safe to retry), never a 500.
func TestCheckoutProcessorDown(t *testing.T) {
	s := st.Start(t, st.WithEnv("PROCESSOR_API_URL", "http://"+closedAddr(t)), st.WithEnv("PROCESSOR_SECRET_KEY", "sk_test_down"))
	if s.ProcessorURL != "" {
		t.Fatal("a simulator runs although PROCESSOR_API_URL names a processor")
	}
	c := newCheckout(t, s)
	r := s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard"))
	if r.Status != 503 || r.Code() != "UNAVAILABLE" || !strings.Contains(string(r.Body), "processor") {
		t.Fatalf("want 503 UNAVAILABLE naming the processor, got %d %s", r.Status, r.Body)
	}
	// The cart is as it was: nothing was paid.
	if cart := myCart(t, s, c.user, c.storeA); len(cart.Items) != 2 {
		t.Fatalf("cart %+v", cart)
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
