package processor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v86"
	"github.com/stripe/stripe-go/v86/webhook"
)

// fast makes retries quick enough for tests.
func fast(cfg *SimulatorConfig) {
	cfg.RetryBase, cfg.RetryMax = 20*time.Millisecond, 100*time.Millisecond
}

// paid is an intent of amount, paid, with its metadata.
func paid(t *testing.T, w *simWorld, amount int64) *stripe.PaymentIntent {
	t.Helper()
	pi := createIntent(t, w, amount, map[string]string{"customerId": "cus_1", "storeId": "sto_1"})
	if _, err := w.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, nil); err != nil {
		t.Fatal(err)
	}
	return pi
}

func refundParams(pi string, amount int64, refundID, key string) *stripe.RefundCreateParams {
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi), Reason: stripe.String("requested_by_customer"),
		Metadata: map[string]string{"refundId": refundID, "orderId": "ord_1"}}
	if amount > 0 {
		p.Amount = stripe.Int64(amount)
	}
	if key != "" {
		p.SetIdempotencyKey(key)
	}
	return p
}

// event is a verified event the hook received: signature checked with
// stripe-go as the payments service checks it, and parsed by stripe-go.
func (h *hook) verified(t *testing.T) []stripe.Event {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []stripe.Event
	for _, raw := range h.raw {
		// The hook only keeps bodies whose signature verified; parse them
		// as stripe-go does (a second check, with the same secret).
		ev, err := webhook.ConstructEventWithOptions(raw, Sign(simWebhook, raw, time.Now()), simWebhook,
			webhook.ConstructEventOptions{IgnoreAPIVersionMismatch: true})
		if err != nil {
			t.Fatalf("event %s: %v", raw, err)
		}
		out = append(out, ev)
	}
	return out
}

// await waits for an event of type for which match holds, and returns it
// with how many such events came.
func (h *hook) await(t *testing.T, eventType string, match func(stripe.Event) bool) stripe.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, ev := range h.verified(t) {
			if string(ev.Type) == eventType && (match == nil || match(ev)) {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event in 5 s; got %d events", eventType, len(h.verified(t)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// count is how many events of type for which match holds came.
func (h *hook) count(t *testing.T, eventType string, match func(stripe.Event) bool) int {
	n := 0
	for _, ev := range h.verified(t) {
		if string(ev.Type) == eventType && (match == nil || match(ev)) {
			n++
		}
	}
	return n
}

func objectID(id string) func(stripe.Event) bool {
	return func(ev stripe.Event) bool {
		var o struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(ev.Data.Raw, &o)
		return o.ID == id
	}
}

// refunded matches a charge.refunded whose refunds include a succeeded id.
func refunded(id string) func(stripe.Event) bool {
	return func(ev stripe.Event) bool {
		var c stripe.Charge
		_ = json.Unmarshal(ev.Data.Raw, &c)
		return c.Refunds != nil && slices.ContainsFunc(c.Refunds.Data, func(r *stripe.Refund) bool {
			return r.ID == id && r.Status == stripe.RefundStatusSucceeded
		})
	}
}

func charge(t *testing.T, ev stripe.Event) stripe.Charge {
	t.Helper()
	var c stripe.Charge
	if err := json.Unmarshal(ev.Data.Raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// sim calls a simulator-only endpoint with the secret key: form, or JSON
// when body is a string.
func (w *simWorld) call(t *testing.T, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	ct := "application/x-www-form-urlencoded"
	switch b := body.(type) {
	case url.Values:
		rd = strings.NewReader(b.Encode())
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	}
	req, err := http.NewRequest(method, w.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+simKey)
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %s: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode
}

type apiErr struct {
	Error APIError `json:"error"`
}

func (w *simWorld) dispute(t *testing.T, pi string, form url.Values) (Dispute, apiErr, int) {
	t.Helper()
	var raw json.RawMessage
	status := w.call(t, http.MethodPost, "/simulator/payment_intents/"+pi+"/disputes", form, &raw)
	var d Dispute
	var e apiErr
	_ = json.Unmarshal(raw, &d)
	_ = json.Unmarshal(raw, &e)
	return d, e, status
}

func (w *simWorld) closeDispute(t *testing.T, id, outcome string) (Dispute, apiErr, int) {
	t.Helper()
	var raw json.RawMessage
	status := w.call(t, http.MethodPost, "/simulator/disputes/"+id+"/close", url.Values{"outcome": {outcome}}, &raw)
	var d Dispute
	var e apiErr
	_ = json.Unmarshal(raw, &d)
	_ = json.Unmarshal(raw, &e)
	return d, e, status
}

func (w *simWorld) control(t *testing.T, body string) Control {
	t.Helper()
	var c Control
	if status := w.call(t, http.MethodPost, "/simulator/controls", body, &c); status != http.StatusOK {
		t.Fatalf("control %s: %d", body, status)
	}
	return c
}

// A refund is idempotent by key (the same key and parameters answer the
// same refund and make no second one; other parameters are refused), never
// exceeds what is left, and its outcome comes later as charge.refunded, a
// Charge with the cumulative amount_refunded and every refund.
func TestRefundsAreIdempotentAndBounded(t *testing.T) {
	w := startSimWith(t, "", fast)
	ctx := context.Background()
	pi := paid(t, w, 10_000)

	re, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 4_000, "rfd_1", "rfd_1"))
	if err != nil || !strings.HasPrefix(re.ID, "re_") || re.Status != stripe.RefundStatusPending || re.Amount != 4_000 ||
		re.PaymentIntent.ID != pi.ID || re.Charge == nil || re.Charge.ID == "" || re.Metadata["refundId"] != "rfd_1" || re.Currency != "aed" {
		t.Fatalf("refund: %+v %v", re, err)
	}
	again, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 4_000, "rfd_1", "rfd_1"))
	if err != nil || again.ID != re.ID || again.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %+v %v, want %s", again, err, re.ID)
	}
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 5_000, "rfd_1", "rfd_1")); !isStripeError(err, 400, "") ||
		err.(*stripe.Error).Type != stripe.ErrorTypeIdempotency {
		t.Fatalf("the key with another amount: %v", err)
	}
	// Above what is left (6,000): refused on amount.
	_, err = w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 6_001, "rfd_2", "rfd_2"))
	if !isStripeError(err, 400, "amount_too_large") || err.(*stripe.Error).Param != "amount" || err.(*stripe.Error).Type != stripe.ErrorTypeInvalidRequest {
		t.Fatalf("over-refund: %v", err)
	}
	ev := w.hook.await(t, EventChargeRefunded, refunded(re.ID))
	c := charge(t, ev)
	if c.AmountRefunded != 4_000 || c.Refunded || c.PaymentIntent.ID != pi.ID || c.Metadata["storeId"] != "sto_1" || len(c.Refunds.Data) != 1 {
		t.Fatalf("first charge.refunded: %+v", c)
	}
	// The rest, amount omitted.
	rest, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 0, "rfd_2", "rfd_2"))
	if err != nil || rest.Amount != 6_000 {
		t.Fatalf("the rest: %+v %v", rest, err)
	}
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 1, "rfd_3", "")); !isStripeError(err, 400, "charge_already_refunded") {
		t.Fatalf("refund of a refunded charge: %v", err)
	}
	c = charge(t, w.hook.await(t, EventChargeRefunded, refunded(rest.ID)))
	if c.AmountRefunded != 10_000 || !c.Refunded || len(c.Refunds.Data) != 2 || c.Refunds.Data[0].Metadata["refundId"] != "rfd_2" ||
		c.Refunds.Data[1].Metadata["refundId"] != "rfd_1" {
		t.Fatalf("last charge.refunded: %+v", c)
	}
	got, err := w.sc.V1Refunds.Retrieve(ctx, re.ID, nil)
	if err != nil || got.Status != stripe.RefundStatusSucceeded {
		t.Fatalf("retrieve: %+v %v", got, err)
	}
	rec, _ := w.sim.Get(pi.ID)
	if len(rec.Refunds) != 2 || w.hook.count(t, EventChargeRefunded, nil) != 2 {
		t.Fatalf("refunds %+v", rec.Refunds)
	}

	// Only a paid intent is refunded; a reason is one the processor knows.
	unpaid := createIntent(t, w, 5_000, nil)
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(unpaid.ID, 0, "rfd_4", "")); !isStripeError(err, 400, "payment_intent_unexpected_state") {
		t.Fatalf("refund of an unpaid intent: %v", err)
	}
	bad := refundParams(paid(t, w, 5_000).ID, 0, "rfd_5", "")
	bad.Reason = stripe.String("changed my mind")
	if _, err := w.sc.V1Refunds.Create(ctx, bad); !isStripeError(err, 400, "parameter_invalid_string") {
		t.Fatalf("unknown reason: %v", err)
	}
	if got, err := w.sc.V1Refunds.Retrieve(ctx, re.ID, nil); err != nil || got.Amount != 4_000 || got.PaymentIntent.ID != pi.ID {
		t.Fatalf("the refund retrieved: %+v %v", got, err)
	}
	for _, kind := range []string{"refund", "dispute", "payout"} {
		var e apiErr
		if status := w.call(t, http.MethodGet, "/v1/"+kind+"s/"+kind+"_nothing", nil, &e); status != 404 || e.Error.Code != "resource_missing" ||
			e.Error.Message != "No such "+kind+": '"+kind+"_nothing'" {
			t.Fatalf("GET a missing %s: %d %+v", kind, status, e)
		}
	}
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams("pi_nothing", 0, "rfd_6", "")); !isStripeError(err, 404, "resource_missing") {
		t.Fatalf("unknown intent: %v", err)
	}
}

// Concurrent refunds of one charge never add up to more than was paid.
func TestConcurrentRefundsNeverExceedThePayment(t *testing.T) {
	w := startSimWith(t, "", fast)
	pi := paid(t, w, 10_000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.sc.V1Refunds.Create(context.Background(), refundParams(pi.ID, 3_000, fmt.Sprint("rfd_", i), fmt.Sprint("rfd_", i)))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case isStripeError(err, 400, "amount_too_large"):
				refused++
			default:
				t.Errorf("refund: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 3 || refused != 5 {
		t.Fatalf("%d refunds made, %d refused; want 3 and 5", ok, refused)
	}
}

// A dispute takes all that is not refunded yet by default, blocks refunds
// while open, and sends charge.dispute.created (needs_response, evidence
// due in 7 days) and charge.dispute.closed; a lost one can no longer be
// refunded, a won one can.
func TestDisputesOpenAndClose(t *testing.T) {
	w := startSimWith(t, "", fast)
	ctx := context.Background()
	pi := paid(t, w, 10_000)
	re, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 2_000, "rfd_1", ""))
	if err != nil {
		t.Fatal(err)
	}
	w.hook.await(t, EventChargeRefunded, refunded(re.ID))

	before := time.Now()
	d, _, status := w.dispute(t, pi.ID, url.Values{"reason": {"product_not_received"}})
	if status != 200 || !strings.HasPrefix(d.ID, "dp_") || d.Amount != 8_000 || d.Status != DisputeNeedsResponse || d.PaymentIntent != pi.ID ||
		d.Reason != "product_not_received" || d.EvidenceDetails.DueBy < before.Add(DisputeEvidenceWindow).Unix() ||
		d.EvidenceDetails.DueBy > time.Now().Add(DisputeEvidenceWindow).Unix() {
		t.Fatalf("dispute %d %+v", status, d)
	}
	ev := w.hook.await(t, EventDisputeCreated, objectID(d.ID))
	var sd stripe.Dispute
	if err := json.Unmarshal(ev.Data.Raw, &sd); err != nil || sd.Status != stripe.DisputeStatusNeedsResponse || sd.Amount != 8_000 ||
		sd.PaymentIntent.ID != pi.ID || sd.Charge.ID == "" || sd.EvidenceDetails.DueBy != d.EvidenceDetails.DueBy || sd.Created == 0 {
		t.Fatalf("charge.dispute.created %+v %v", sd, err)
	}
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 100, "rfd_2", "")); !isStripeError(err, 400, "charge_disputed") {
		t.Fatalf("refund while disputed: %v", err)
	}
	if _, e, status := w.dispute(t, pi.ID, nil); status != 400 || e.Error.Code != "charge_disputed" {
		t.Fatalf("a second open dispute: %d %+v", status, e)
	}
	closed, _, status := w.closeDispute(t, d.ID, "lost")
	if status != 200 || closed.Status != DisputeLost {
		t.Fatalf("close: %d %+v", status, closed)
	}
	ev = w.hook.await(t, EventDisputeClosed, objectID(d.ID))
	if err := json.Unmarshal(ev.Data.Raw, &sd); err != nil || sd.Status != stripe.DisputeStatusLost || sd.Amount != 8_000 {
		t.Fatalf("charge.dispute.closed %+v %v", sd, err)
	}
	if _, e, status := w.closeDispute(t, d.ID, "won"); status != 400 || e.Error.Code != "dispute_already_closed" {
		t.Fatalf("closing twice: %d %+v", status, e)
	}
	// Lost: the 8,000 are gone, nothing is left to refund.
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 1, "rfd_3", "")); !isStripeError(err, 400, "charge_already_refunded") {
		t.Fatalf("refund after a lost dispute of the rest: %v", err)
	}

	// A lost partial dispute lowers what can be refunded by its amount.
	other := paid(t, w, 10_000)
	d, _, _ = w.dispute(t, other.ID, url.Values{"amount": {"3000"}})
	if d.Amount != 3_000 || d.Reason != "fraudulent" {
		t.Fatalf("partial dispute %+v", d)
	}
	w.closeDispute(t, d.ID, "lost")
	if _, err := w.sc.V1Refunds.Create(ctx, refundParams(other.ID, 7_001, "rfd_4", "")); !isStripeError(err, 400, "amount_too_large") {
		t.Fatalf("refund above what the lost dispute left: %v", err)
	}
	if re, err := w.sc.V1Refunds.Create(ctx, refundParams(other.ID, 0, "rfd_5", "")); err != nil || re.Amount != 7_000 {
		t.Fatalf("refund of what is left: %+v %v", re, err)
	}
	// A won one does not.
	third := paid(t, w, 10_000)
	d, _, _ = w.dispute(t, third.ID, url.Values{"amount": {"3000"}})
	w.closeDispute(t, d.ID, "won")
	w.hook.await(t, EventDisputeClosed, objectID(d.ID))
	if re, err := w.sc.V1Refunds.Create(ctx, refundParams(third.ID, 0, "rfd_6", "")); err != nil || re.Amount != 10_000 {
		t.Fatalf("refund after a won dispute: %+v %v", re, err)
	}
	// Refused: more than is left, an unpaid intent, an unknown reason.
	fourth := paid(t, w, 10_000)
	if _, e, status := w.dispute(t, fourth.ID, url.Values{"amount": {"10001"}}); status != 400 || e.Error.Code != "amount_too_large" {
		t.Fatalf("dispute above the payment: %d %+v", status, e)
	}
	if _, e, status := w.dispute(t, createIntent(t, w, 5_000, nil).ID, nil); status != 400 || e.Error.Code != "payment_intent_unexpected_state" {
		t.Fatalf("dispute of an unpaid intent: %d %+v", status, e)
	}
	if _, e, status := w.dispute(t, fourth.ID, url.Values{"reason": {"whim"}}); status != 400 || e.Error.Param != "reason" {
		t.Fatalf("unknown reason: %d %+v", status, e)
	}
	if _, e, status := w.closeDispute(t, "dp_nothing", "won"); status != 404 || e.Error.Code != "resource_missing" {
		t.Fatalf("unknown dispute: %d %+v", status, e)
	}
	var got Dispute
	if status := w.call(t, http.MethodGet, "/v1/disputes/"+d.ID, nil, &got); status != 200 || got.Status != DisputeWon {
		t.Fatalf("retrieve: %d %+v", status, got)
	}
}

func payoutParams(payoutID string, amount int64) *stripe.PayoutCreateParams {
	p := &stripe.PayoutCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("aed"), Metadata: map[string]string{
		"payoutId": payoutID, "storeId": "sto_1", "iban": "AE070331234567890123456", "accountHolderName": "Noor Stores"}}
	p.SetIdempotencyKey("payout:" + payoutID)
	return p
}

// A payout is pending, idempotent by key, and becomes paid (payout.paid);
// told to fail, it becomes failed with a failure code and message
// (payout.failed), once per time the control says.
func TestPayoutsArePaidOrFail(t *testing.T) {
	w := startSimWith(t, "", fast)
	ctx := context.Background()
	po, err := w.sc.V1Payouts.Create(ctx, payoutParams("pay_1", 12_345))
	if err != nil || !strings.HasPrefix(po.ID, "po_") || po.Status != stripe.PayoutStatusPending || po.Amount != 12_345 ||
		po.Metadata["iban"] != "AE070331234567890123456" || po.ArrivalDate <= po.Created {
		t.Fatalf("payout: %+v %v", po, err)
	}
	if again, err := w.sc.V1Payouts.Create(ctx, payoutParams("pay_1", 12_345)); err != nil || again.ID != po.ID {
		t.Fatalf("replay: %+v %v", again, err)
	}
	if _, err := w.sc.V1Payouts.Create(ctx, payoutParams("pay_1", 1)); !isStripeError(err, 400, "") {
		t.Fatalf("the key with another amount: %v", err)
	}
	ev := w.hook.await(t, EventPayoutPaid, objectID(po.ID))
	var sp stripe.Payout
	if err := json.Unmarshal(ev.Data.Raw, &sp); err != nil || sp.Status != stripe.PayoutStatusPaid || sp.Metadata["payoutId"] != "pay_1" || sp.Amount != 12_345 {
		t.Fatalf("payout.paid %+v %v", sp, err)
	}
	if got, err := w.sc.V1Payouts.Retrieve(ctx, po.ID, nil); err != nil || got.Status != stripe.PayoutStatusPaid {
		t.Fatalf("retrieve: %+v %v", got, err)
	}

	w.control(t, `{"type":"payout.*","action":"fail"}`)
	failed, err := w.sc.V1Payouts.Create(ctx, payoutParams("pay_2", 500))
	if err != nil {
		t.Fatal(err)
	}
	ev = w.hook.await(t, EventPayoutFailed, objectID(failed.ID))
	if err := json.Unmarshal(ev.Data.Raw, &sp); err != nil || sp.Status != stripe.PayoutStatusFailed || sp.FailureCode != "account_closed" ||
		sp.FailureMessage == "" || sp.Metadata["payoutId"] != "pay_2" {
		t.Fatalf("payout.failed %+v %v", sp, err)
	}
	w.control(t, `{"objectId":"pay_4","action":"fail","failureCode":"invalid_account_number"}`)
	third, _ := w.sc.V1Payouts.Create(ctx, payoutParams("pay_3", 500))
	fourth, _ := w.sc.V1Payouts.Create(ctx, payoutParams("pay_4", 500))
	w.hook.await(t, EventPayoutPaid, objectID(third.ID))
	ev = w.hook.await(t, EventPayoutFailed, objectID(fourth.ID))
	if err := json.Unmarshal(ev.Data.Raw, &sp); err != nil || sp.FailureCode != "invalid_account_number" {
		t.Fatalf("payout.failed %+v %v", sp, err)
	}
	if _, err := w.sc.V1Payouts.Create(ctx, &stripe.PayoutCreateParams{Currency: stripe.String("aed")}); !isStripeError(err, 400, "parameter_missing") {
		t.Fatalf("no amount: %v", err)
	}
}

// Controls: fail turns a refund into refund.failed (and gives its amount
// back to what can be refunded), delay postpones the webhook, hold keeps it
// until released; a control applies as many times as it says.
func TestControlsFailDelayAndHold(t *testing.T) {
	w := startSimWith(t, "", fast)
	ctx := context.Background()
	pi := paid(t, w, 10_000)

	c := w.control(t, `{"objectId":"rfd_1","action":"fail","failureCode":"insufficient_funds"}`)
	if c.Times != 1 || !strings.HasPrefix(c.ID, "ctl_") {
		t.Fatalf("control %+v", c)
	}
	re, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 10_000, "rfd_1", "rfd_1"))
	if err != nil {
		t.Fatal(err)
	}
	ev := w.hook.await(t, EventRefundFailed, objectID(re.ID))
	var sr stripe.Refund
	if err := json.Unmarshal(ev.Data.Raw, &sr); err != nil || sr.Status != stripe.RefundStatusFailed || sr.FailureReason != "insufficient_funds" ||
		sr.Metadata["refundId"] != "rfd_1" || sr.Amount != 10_000 {
		t.Fatalf("refund.failed %+v %v", sr, err)
	}
	if w.hook.count(t, EventChargeRefunded, nil) != 0 {
		t.Fatal("a failed refund sent charge.refunded")
	}
	// The failed refund gave its amount back; the control is used up.
	re2, err := w.sc.V1Refunds.Create(ctx, refundParams(pi.ID, 10_000, "rfd_2", "rfd_2"))
	if err != nil {
		t.Fatalf("refund after a failed one: %v", err)
	}
	w.hook.await(t, EventChargeRefunded, refunded(re2.ID))

	// Delay.
	w.control(t, `{"type":"charge.dispute.created","action":"delay","delayMs":400}`)
	other := paid(t, w, 5_000)
	start := time.Now()
	d, _, _ := w.dispute(t, other.ID, nil)
	w.hook.await(t, EventDisputeCreated, objectID(d.ID))
	if waited := time.Since(start); waited < 400*time.Millisecond {
		t.Fatalf("delivered after %s, before the 400 ms delay", waited)
	}

	// Hold until released; the dispute's next event waits behind it.
	w.control(t, `{"type":"charge.dispute.created","action":"hold"}`)
	d, _, _ = w.dispute(t, paid(t, w, 5_000).ID, nil)
	w.closeDispute(t, d.ID, "won")
	held := w.sim.Deliveries(d.ID, EventDisputeCreated, "")
	if len(held) != 1 || held[0].Status != DeliveryHeld {
		t.Fatalf("deliveries %+v", held)
	}
	time.Sleep(200 * time.Millisecond)
	if n := w.hook.count(t, EventDisputeCreated, objectID(d.ID)) + w.hook.count(t, EventDisputeClosed, objectID(d.ID)); n != 0 {
		t.Fatalf("%d events sent while the dispute's first was held", n)
	}
	var list struct {
		Data []QueuedDelivery `json:"data"`
	}
	if status := w.call(t, http.MethodGet, "/simulator/deliveries?status=held", nil, &list); status != 200 || len(list.Data) != 1 || list.Data[0].ID != held[0].ID {
		t.Fatalf("GET /simulator/deliveries: %d %+v", status, list)
	}
	var released QueuedDelivery
	if status := w.call(t, http.MethodPost, "/simulator/deliveries/"+held[0].ID+"/release", url.Values{}, &released); status != 200 || released.Status != DeliveryQueued {
		t.Fatalf("release: %d %+v", status, released)
	}
	w.hook.await(t, EventDisputeClosed, objectID(d.ID))
	var order []string
	for _, ev := range w.hook.verified(t) {
		if objectID(d.ID)(ev) {
			order = append(order, string(ev.Type))
		}
	}
	if !slices.Equal(order, []string{EventDisputeCreated, EventDisputeClosed}) {
		t.Fatalf("events %v", order)
	}
	var e apiErr
	if status := w.call(t, http.MethodPost, "/simulator/deliveries/"+held[0].ID+"/release", url.Values{}, &e); status != 400 || e.Error.Code != "delivery_not_held" {
		t.Fatalf("releasing a delivered one: %d %+v", status, e)
	}

	// What is refused.
	for body, param := range map[string]string{
		`{"type":"charge.dispute.*","action":"fail"}`:         "type",
		`{"type":"payment_intent.succeeded","action":"hold"}`: "type",
		`{"action":"hold"}`:                                     "type",
		`{"type":"refund.*","action":"drop"}`:                   "action",
		`{"type":"refund.*","action":"delay"}`:                  "delayMs",
		`{"type":"refund.*","action":"fail","failureCode":"x"}`: "failureCode",
		`{"type":"refund.*","action":"hold","times":0}`:         "times",
		`{"type":"refund.*","action":"hold","when":"now"}`:      "when",
	} {
		var e apiErr
		if status := w.call(t, http.MethodPost, "/simulator/controls", body, &e); status != 400 || e.Error.Param != param {
			t.Errorf("%s: %d %+v, want 400 on %s", body, status, e, param)
		}
	}
}

// A queued webhook is retried with the same event until the endpoint
// answers 2xx; each attempt is recorded. One that never reaches it is given
// up after MaxAttempts, and a release tries it again.
func TestQueuedWebhooksAreRetriedUntilAccepted(t *testing.T) {
	w := startSimWith(t, "", fast)
	w.hook.mu.Lock()
	w.hook.failures = 3
	w.hook.mu.Unlock()
	po, err := w.sc.V1Payouts.Create(context.Background(), payoutParams("pay_1", 500))
	if err != nil {
		t.Fatal(err)
	}
	w.hook.await(t, EventPayoutPaid, objectID(po.ID))
	deadline := time.Now().Add(5 * time.Second)
	var ds []QueuedDelivery
	for {
		ds = w.sim.Deliveries(po.ID, "", "")
		if len(ds) == 1 && ds[0].Status == DeliveryDelivered || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(ds) != 1 || ds[0].Status != DeliveryDelivered || ds[0].Attempts != 4 || ds[0].LastStatus != 200 || len(ds[0].History) != 4 {
		t.Fatalf("deliveries %+v", ds)
	}
	for i, a := range ds[0].History {
		if a.EventID != ds[0].EventID || (i < 3) == a.OK() {
			t.Fatalf("attempt %d: %+v", i, a)
		}
	}
	if n := w.hook.count(t, EventPayoutPaid, nil); n != 4 {
		t.Fatalf("%d payout.paid received, want 4 (the same event)", n)
	}

	// Unreachable: nothing listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	w2 := startSimWith(t, "", func(c *SimulatorConfig) { fast(c); c.WebhookURL, c.MaxAttempts = dead, 3 })
	po, err = w2.sc.V1Payouts.Create(context.Background(), payoutParams("pay_1", 500))
	if err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		ds = w2.sim.Deliveries(po.ID, "", "")
		if ds[0].Status == DeliveryGaveUp || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ds[0].Status != DeliveryGaveUp || ds[0].Attempts != 3 || ds[0].LastStatus != 0 || ds[0].LastError == "" {
		t.Fatalf("unreachable: %+v", ds[0])
	}
	var released QueuedDelivery
	if status := w2.call(t, http.MethodPost, "/simulator/deliveries/"+ds[0].ID+"/release", url.Values{}, &released); status != 200 ||
		released.Status != DeliveryQueued || released.Attempts != 0 {
		t.Fatalf("release: %d %+v", status, released)
	}
}

// Queued deliveries live in the directory: a restart resumes them, with the
// same event, and a held one stays held.
func TestRestartResumesQueuedDeliveries(t *testing.T) {
	dir := t.TempDir()
	w := startSimWith(t, dir, fast)
	w.hook.mu.Lock()
	w.hook.status = http.StatusServiceUnavailable
	w.hook.mu.Unlock()
	pi := paid(t, w, 10_000)
	re, err := w.sc.V1Refunds.Create(context.Background(), refundParams(pi.ID, 2_500, "rfd_1", "rfd_1"))
	if err != nil {
		t.Fatal(err)
	}
	w.control(t, `{"type":"payout.paid","action":"hold"}`)
	po, err := w.sc.V1Payouts.Create(context.Background(), payoutParams("pay_1", 500))
	if err != nil {
		t.Fatal(err)
	}
	w.hook.await(t, EventChargeRefunded, refunded(re.ID)) // answered 503
	w.stop()
	first := w.sim.Deliveries(re.ID, "", "")[0]
	if first.Status != DeliveryQueued || first.Attempts == 0 {
		t.Fatalf("before the restart: %+v", first)
	}

	w2 := startSimWith(t, dir, fast)
	ev := w2.hook.await(t, EventChargeRefunded, refunded(re.ID))
	if ev.ID != first.EventID {
		t.Fatalf("event %s after the restart, want the same %s", ev.ID, first.EventID)
	}
	if c := charge(t, ev); c.AmountRefunded != 2_500 {
		t.Fatalf("charge %+v", c)
	}
	held := w2.sim.Deliveries(po.ID, "", "")
	if len(held) != 1 || held[0].Status != DeliveryHeld {
		t.Fatalf("held payout after the restart: %+v", held)
	}
	w2.call(t, http.MethodPost, "/simulator/deliveries/"+held[0].ID+"/release", url.Values{}, nil)
	w2.hook.await(t, EventPayoutPaid, objectID(po.ID))
	// The refund and its key survived too.
	if again, err := w2.sc.V1Refunds.Create(context.Background(), refundParams(pi.ID, 2_500, "rfd_1", "rfd_1")); err != nil || again.ID != re.ID ||
		again.Status != stripe.RefundStatusSucceeded {
		t.Fatalf("replay after the restart: %+v %v", again, err)
	}
}
