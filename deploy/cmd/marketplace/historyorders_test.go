package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// The orders of the wallet history (docs/adr/0152-wallet-history-check.md):
// while the clients call, one more client pays orders through the
// all-in-one's processor simulator, delivers them, refunds some and
// disputes some, on the same stores and across the same kills. Their wallet effects arrive by
// events, at a moment the test does not see: each is recorded as applied
// (historymodel_test.go) from its trigger's call (the delivery, the refund)
// to when the store's statement first shows it (an earning entry of the
// order, one more refund entry, a dispute's entries), so the model may place it anywhere in
// between. The earnings are released by the clients' move_pending_to_available
// adjustments (from the held earnings, oldest first); a refund after that
// takes the rest from available, which may go negative.

// historyOrderShop is what a store sells in the history: one product.
type historyOrderShop struct {
	product string
}

// callUntil calls path until an answer comes (through kills, restarts and
// transient errors, for up to a minute) and returns it; key makes a
// mutation's retries one call.
func (r *historyRun) callUntil(token, path, args, key string) (crashAnswer, bool) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		url, _, ended := r.current()
		ans, err := crashCall(url, token, path, args, key)
		if err != nil {
			select {
			case <-ended:
			case <-time.After(500 * time.Millisecond):
			}
			continue
		}
		if ans.status >= 500 || ans.status == 429 || strings.Contains(ans.body, "idempotency_key_in_use") ||
			strings.Contains(ans.body, `"UNAVAILABLE"`) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		return ans, true
	}
	return crashAnswer{}, false
}

// orderFail records why the orders' client stopped (the run fails).
func (r *historyRun) orderFail(format string, args ...any) {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	r.unexpected = append(r.unexpected, "orders: "+fmt.Sprintf(format, args...))
}

func jsonField(body, name string) any {
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil {
		return nil
	}
	return m[name]
}

// orders is the orders' client: cfg.orders orders, each paid, delivered and
// refunded in part or whole with probability 3/4 (some twice).
func (r *historyRun) orders(client int) {
	if r.cfg.orders == 0 {
		return
	}
	rng := rand.New(rand.NewSource(77))
	customer := r.mint("user-h")
	ans, ok := r.callUntil(customer, "customers.profile.upsertMyProfile", `{"name":"Noor","phone":"+971507654321"}`, "h-profile")
	if !ok || ans.status != 200 {
		r.orderFail("profile: %d %s", ans.status, ans.body)
		return
	}
	var custID string
	_ = json.Unmarshal([]byte(ans.body), &custID)
	ans, ok = r.callUntil(customer, "customers.addresses.createAddress", fmt.Sprintf(`{"customerId":%q,"name":"Home","fullAddress":"Flat 1",
		"city":%q,"area":%q,"latitude":"25.08","longitude":"55.14","isDefault":true}`, custID, r.city, r.area), "h-address")
	if !ok || ans.status != 200 {
		r.orderFail("address: %d %s", ans.status, ans.body)
		return
	}
	var address string
	_ = json.Unmarshal([]byte(ans.body), &address)
	for n := 0; n < r.cfg.orders; n++ {
		i := rng.Intn(len(r.stores))
		if !r.order(client, rng, n, i, customer, address) {
			return
		}
	}
}

// order pays, delivers and maybe refunds one order of store i.
func (r *historyRun) order(client int, rng *rand.Rand, n, i int, customer, address string) bool {
	st, shop := r.stores[i], r.shops[i]
	key := func(what string) string { return fmt.Sprintf("h-order-%d-%s", n, what) }
	ans, ok := r.callUntil(customer, "customers.cart.addItem", fmt.Sprintf(`{"productId":%q,"quantity":%d}`, shop.product, 1+rng.Intn(3)), key("cart"))
	if !ok || ans.status != 200 {
		r.orderFail("addItem: %d %s", ans.status, ans.body)
		return false
	}
	ans, ok = r.callUntil(customer, "customers.checkout.createPaymentIntent", fmt.Sprintf(`{"storeId":%q,"addressId":%q,"deliveryType":"standard"}`, st.id, address), key("intent"))
	if !ok || ans.status != 200 {
		r.orderFail("createPaymentIntent: %d %s", ans.status, ans.body)
		return false
	}
	pi, _ := jsonField(ans.body, "paymentIntentId").(string)
	getenv := func(k string) string {
		for _, kv := range r.env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	// Pay (again after a kill: the confirmed intent is then refused, and
	// the order is there).
	var order map[string]any
	r.mu.Lock()
	genBefore := r.gen
	r.mu.Unlock()
	deadline := time.Now().Add(time.Minute)
	for order == nil && time.Now().Before(deadline) {
		_ = pay(context.Background(), []string{"-intent", pi}, getenv, io.Discard)
		for range 50 {
			// An administrator's view: it shows the commission.
			a, ok := r.callUntil(r.admin, "customers.orders.getOrderByPaymentIntent", fmt.Sprintf(`{"paymentIntentId":%q}`, pi), "")
			if ok && a.status == 200 && jsonField(a.body, "status") == "confirmed" {
				_ = json.Unmarshal([]byte(a.body), &order)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if order == nil {
		r.mu.Lock()
		killed := r.gen != genBefore
		r.mu.Unlock()
		if killed {
			// The simulator sends a payment's webhook once, inside the
			// confirm call (a real processor retries for days): a kill
			// then loses the order; nothing of it reached a wallet.
			r.t.Logf("order of %s: its payment's webhook was lost to a kill (the simulator does not retry payment webhooks)", pi)
			return false
		}
		r.orderFail("order of %s never confirmed", pi)
		return false
	}
	id, _ := order["_id"].(string)
	total, _ := order["total"].(float64)
	comm, _ := order["platformCommission"].(float64)
	earn, _ := order["storeEarnings"].(float64)
	in := walletInput{Store: st.id, Order: id, Total: toFils(total), Commission: toFils(comm), Earnings: toFils(earn)}
	if in.Total-in.Commission != in.Earnings {
		r.orderFail("order %s: total %v, commission %v, earnings %v", id, total, comm, earn)
		return false
	}
	from := time.Now().Add(-time.Minute).UnixMilli()
	left := in.Total
	// The second order of every four: a third of it disputed and lost
	// before its delivery (its share lowers the credit; only the fee
	// leaves available).
	early := n%4 == 1
	if early {
		lost, ok := r.disputeLostBeforeCredit(client, st, in, pi, getenv, from)
		if !ok {
			return true // the order stays undelivered: nothing more of it reaches the wallet
		}
		left -= lost
	}
	var credit int64
	for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
		if status == "delivered" {
			credit = r.now()
		}
		a, ok := r.callUntil(st.owner, "stores.orders.updateOrderStatus", fmt.Sprintf(`{"orderId":%q,"status":%q}`, id, status), key(status))
		if !ok || a.status != 200 {
			r.orderFail("updateOrderStatus %s: %d %s", status, a.status, a.body)
			return false
		}
	}
	if !r.seen(st, from, func(e statementEntry) bool { return e.Kind == "earning" && e.OrderID == id }, 1) {
		r.orderFail("order %s: its earning never reached the wallet", id)
		return false
	}
	c := in
	c.Kind = opCredit
	r.record(porcupine.Operation{ClientId: client, Input: c, Call: credit, Output: walletOutput{Applied: true}, Return: r.now()}, nil)
	// Wallet calls of this client, recorded as the others' are.
	seq := r.cfg.ops + 100 + 10*n
	call := func(in walletInput) walletOutput {
		seq++
		in.Store, in.Seq = st.id, seq
		return r.do(client, rng, st, in)
	}
	// Half the orders: the earning released and available emptied down to
	// 1.00, so that a refund takes the wallet into debt.
	if rng.Intn(2) == 0 {
		call(walletInput{Kind: opAdjust, Adjust: "move_pending_to_available", Amount: in.Earnings})
		if w := call(walletInput{Kind: opRead}); w.Wallet != nil && w.Wallet.Available > 1_00 {
			call(walletInput{Kind: opAdjust, Adjust: "deduct_balance", Amount: w.Wallet.Available - 1_00})
		}
	}
	refunds := 0
	for left > 0 && rng.Intn(4) != 0 {
		amount := left
		args := fmt.Sprintf(`{"orderId":%q,"reason":"history"}`, id)
		if rng.Intn(2) == 0 && left > 2_00 {
			amount = 1_00 + rng.Int63n(left/2)
			args = fmt.Sprintf(`{"orderId":%q,"reason":"history","amount":%s}`, id, fils(amount))
		}
		at := r.now()
		a, ok := r.callUntil(r.admin, "admins.orders.refundOrder", args, key(fmt.Sprint("refund-", refunds)))
		if !ok || a.status != 200 {
			r.orderFail("refundOrder %s: %d %s", args, a.status, a.body)
			return false
		}
		got, _ := jsonField(a.body, "amount").(float64)
		if toFils(got) != amount {
			r.orderFail("refundOrder %s answered %s", args, a.body)
			return false
		}
		refunds++
		if !r.seen(st, from, func(e statementEntry) bool { return e.Kind == "refund" && e.OrderID == id }, refunds) {
			r.orderFail("order %s: refund %d never reached the wallet", id, refunds)
			return false
		}
		rf := in
		rf.Kind, rf.Amount = opRefund, amount
		r.record(porcupine.Operation{ClientId: client, Input: rf, Call: at, Output: walletOutput{Applied: true}, Return: r.now()}, nil)
		left -= amount
		call(walletInput{Kind: opRequest, Amount: 100_00}) // refused in debt, if it is
	}
	if left > 0 && rng.Intn(2) == 0 && !early { // (one dispute an order)
		r.disputeOrder(client, rng, st, in, pi, left, getenv)
	}
	return true
}

// disputeOrder opens a dispute of what is left of the order at the
// simulator and closes it won or lost (the fee, 15.00 by default, charged
// to the store), each effect applied when the statement shows it. A
// simulator call cut by a kill is an unanswered operation: the dispute may
// or may not be there, and it stops.
func (r *historyRun) disputeOrder(client int, rng *rand.Rand, st historyStore, in walletInput, pi string, left int64, getenv func(string) string) {
	from := time.Now().Add(-time.Minute).UnixMilli()
	open := in
	open.Kind, open.Amount = opDisputeOpen, left
	at := r.now()
	var out bytes.Buffer
	if err := dispute(context.Background(), []string{"-intent", pi}, getenv, &out); err != nil {
		r.record(porcupine.Operation{ClientId: client, Input: open, Call: at, Output: walletOutput{}, Return: math.MaxInt64}, nil)
		return
	}
	dp, _ := jsonField(out.String(), "disputeId").(string)
	if amount, _ := jsonField(out.String(), "amount").(float64); toFils(amount) != left {
		r.orderFail("dispute of %s: %s, want %s", pi, out.String(), fils(left))
		return
	}
	if !r.seen(st, from, func(e statementEntry) bool { return e.Kind == "dispute_hold" && e.DisputeID == dp }, 1) {
		r.orderFail("dispute %s never held", dp)
		return
	}
	r.record(porcupine.Operation{ClientId: client, Input: open, Call: at, Output: walletOutput{Applied: true}, Return: r.now()}, nil)
	closing := in
	closing.Kind, closing.Outcome, closing.Fee = opDisputeClose, disputeWon, 15_00
	kinds := []string{"dispute_release"}
	if rng.Intn(2) == 0 {
		closing.Outcome, kinds = disputeLost, []string{"dispute_loss", "dispute_fee"}
	}
	at = r.now()
	if err := dispute(context.Background(), []string{"-close", dp, "-outcome", closing.Outcome}, getenv, io.Discard); err != nil {
		r.record(porcupine.Operation{ClientId: client, Input: closing, Call: at, Output: walletOutput{}, Return: math.MaxInt64}, nil)
		return
	}
	for _, k := range kinds {
		if !r.seen(st, from, func(e statementEntry) bool { return e.Kind == k && e.DisputeID == dp }, 1) {
			r.orderFail("dispute %s: no %s entry", dp, k)
			return
		}
	}
	r.record(porcupine.Operation{ClientId: client, Input: closing, Call: at, Output: walletOutput{Applied: true}, Return: r.now()}, nil)
}

// disputeLostBeforeCredit opens a dispute of a third of the order (at
// least 1.00) before it is delivered and closes it lost, both applied when
// the statement shows the dispute's fee (nothing else of it shows before
// the credit), then waits until the customers service counts the loss in
// what is left to refund. It answers the amount lost; false when the
// opening was cut by a kill (recorded unanswered: the dispute may or may
// not be there; the order is left undelivered) or the wallet never showed
// the loss (the run fails). A closing cut by a kill is asked again: a
// dispute closed already is refused dispute_already_closed.
func (r *historyRun) disputeLostBeforeCredit(client int, st historyStore, in walletInput, pi string, getenv func(string) string, from int64) (int64, bool) {
	amount := max(in.Total/3, 1_00)
	open := in
	open.Kind, open.Amount = opDisputeOpen, amount
	closing := in
	closing.Kind, closing.Outcome, closing.Fee = opDisputeClose, disputeLost, 15_00
	at := r.now()
	var out bytes.Buffer
	err := dispute(context.Background(), []string{"-intent", pi, "-amount", fils(amount)}, getenv, &out)
	dp, _ := jsonField(out.String(), "disputeId").(string)
	if err != nil && dp == "" { // (a webhook not delivered yet is retried: the dispute is there)
		r.record(porcupine.Operation{ClientId: client, Input: open, Call: at, Output: walletOutput{}, Return: math.MaxInt64}, nil)
		return 0, false
	}
	if got, _ := jsonField(out.String(), "amount").(float64); toFils(got) != amount {
		r.orderFail("dispute of %s before the delivery: %s, want %s", pi, out.String(), fils(amount))
		return 0, false
	}
	atClose := r.now()
	for deadline := time.Now().Add(time.Minute); ; {
		out.Reset()
		err := dispute(context.Background(), []string{"-close", dp, "-outcome", disputeLost}, getenv, &out)
		// (A closing cut by a kill may have closed it: asked again, the
		// simulator refuses with its code, not its message's words.)
		var refused *simRefusal
		if err == nil || jsonField(out.String(), "status") == disputeLost || errors.As(err, &refused) && refused.Code == "dispute_already_closed" {
			break
		}
		if time.Now().After(deadline) {
			// Its effects may be in the wallet: both are recorded
			// unanswered, so that the check of the wallet still holds.
			r.orderFail("dispute %s: never closed: %v", dp, err)
			r.record(porcupine.Operation{ClientId: client, Input: open, Call: at, Output: walletOutput{}, Return: math.MaxInt64}, nil)
			r.record(porcupine.Operation{ClientId: client, Input: closing, Call: atClose, Output: walletOutput{}, Return: math.MaxInt64}, nil)
			return 0, false
		}
		time.Sleep(500 * time.Millisecond)
	}
	if !r.seen(st, from, func(e statementEntry) bool { return e.Kind == "dispute_fee" && e.DisputeID == dp }, 1) {
		r.orderFail("dispute %s lost before the delivery: no dispute_fee entry", dp)
		return 0, false
	}
	seen := r.now()
	r.record(porcupine.Operation{ClientId: client, Input: open, Call: at, Output: walletOutput{Applied: true}, Return: seen}, nil)
	r.record(porcupine.Operation{ClientId: client, Input: closing, Call: atClose, Output: walletOutput{Applied: true}, Return: seen}, nil)
	want := in.Total - amount
	for range 600 {
		a, ok := r.callUntil(r.admin, "customers.orders.getOrderByPaymentIntent", fmt.Sprintf(`{"paymentIntentId":%q}`, pi), "")
		if left, _ := jsonField(a.body, "refundableAmount").(float64); ok && a.status == 200 && toFils(left) == want {
			r.t.Logf("order of %s: %s disputed (%s) and lost before its delivery", pi, fils(amount), dp)
			return amount, true
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.orderFail("order of %s: the loss of dispute %s never counted in what is left to refund", pi, dp)
	return 0, false
}

type statementEntry struct{ Kind, OrderID, RefundID, DisputeID string }

// seen waits until the store's statement since from (epoch ms) holds at
// least n entries matching match.
func (r *historyRun) seen(st historyStore, from int64, match func(statementEntry) bool, n int) bool {
	// An effect after a kill waits for the simulator's webhook retries
	// (1 s doubling) and the consumers' own: minutes, not seconds.
	deadline := time.Now().Add(4 * time.Minute)
	for time.Now().Before(deadline) {
		args := fmt.Sprintf(`{"storeId":%q,"from":%d,"to":%d}`, st.id, from, time.Now().Add(time.Hour).UnixMilli())
		a, ok := r.callUntil(r.admin, "stores.wallet.getStatement", args, "")
		if ok && a.status == 200 {
			var s struct{ Entries []statementEntry }
			_ = json.Unmarshal([]byte(a.body), &s)
			k := 0
			for _, e := range s.Entries {
				if match(e) {
					k++
				}
			}
			if k >= n {
				return true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
