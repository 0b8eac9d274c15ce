package payments

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/services/payments/domain"
)

// refundsProcessor stands in for the processor's API: an httptest server
// speaking the part of Stripe's API this service uses (as
// TestProcessorFailures does). It records every request and answers POST
// /v1/refunds with a pending refund, or with the status and body it is told
// to; GET /v1/payment_intents/{id} answers an intent whose metadata names
// testStore.
type refundsProcessor struct {
	srv *httptest.Server

	mu     sync.Mutex
	reqs   []processorReq
	status int    // 0: answer normally
	body   string // with status
}

type processorReq struct {
	method, path, key string
	form              url.Values
}

func startRefundsProcessor(t *testing.T) *refundsProcessor {
	t.Helper()
	f := &refundsProcessor{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		f.reqs = append(f.reqs, processorReq{method: r.Method, path: r.URL.Path, key: r.Header.Get("Idempotency-Key"), form: r.PostForm})
		n, status, body := len(f.reqs), f.status, f.body
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Stripe-Should-Retry", "false") // answer at once: the consumer retries, not the client
		if status != 0 {
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/refunds":
			amount := r.PostForm.Get("amount")
			if amount == "" {
				amount = "15750" // all that is left
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "re_" + strconv.Itoa(n), "object": "refund", "amount": json.Number(amount), "currency": "aed",
				"payment_intent": r.PostForm.Get("payment_intent"), "status": "pending",
				"metadata": map[string]string{"refundId": r.PostForm.Get("metadata[refundId]"), "orderId": r.PostForm.Get("metadata[orderId]")}})
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/payment_intents/"):
			json.NewEncoder(w).Encode(map[string]any{"id": strings.TrimPrefix(r.URL.Path, "/v1/payment_intents/"), "object": "payment_intent",
				"amount": 15750, "currency": "aed", "metadata": map[string]string{"storeId": testStore}})
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *refundsProcessor) answer(status int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.body = status, body
}

func (f *refundsProcessor) requests() []processorReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]processorReq(nil), f.reqs...)
}

// useProcessor points the harness's service at the processor at u.
func (h *harness) useProcessor(u string) {
	h.svc.processor = newProcessor(&Settings{APIURL: u, SecretKey: "sk_test_x"}, h.svc.env.Logger)
}

func refundEnvelope(t *testing.T, d customers.RefundRequested) events.Envelope {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return events.Envelope{ID: "evt_" + ids.New("orders")[4:], Type: customers.EventRefundRequested, Source: customers.Service, Subject: d.OrderID, Data: raw}
}

// consume runs the consumer's steps on one event as events.RunConsumer
// does: prepare outside the transaction, then the handler inside one.
func (h *harness) consume(t *testing.T, env events.Envelope) error {
	t.Helper()
	if d, err := refundRequest(env); err == nil && !h.unconfirmed {
		// The customers service has the refund requested, as the event says.
		f := h.orderFacts[d.OrderID]
		f.OrderID, f.PaymentIntentID = d.OrderID, d.PaymentIntentID
		known := false
		for _, r := range f.Refunds {
			known = known || r.RefundID == d.RefundID
		}
		if !known {
			f.Refunds = append(f.Refunds, customers.RefundFact{RefundID: d.RefundID, Amount: d.Amount, Status: customers.RefundStatusRequested})
		}
		h.orderFacts[d.OrderID] = f
	}
	ctx, err := h.svc.prepare(context.Background(), []events.Envelope{env})
	if err != nil {
		return err
	}
	return h.db.Tx(ctx, func(tx context.Context) error { return h.svc.onEvent(tx, env) })
}

func (h *harness) refund(t *testing.T, id string) *domain.Refund {
	t.Helper()
	r, err := h.svc.refunds.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sent is one published event, decoded.
type sent struct {
	typ, key string
	data     json.RawMessage
}

// published is every event published so far, once the outbox is empty.
func (h *harness) published(t *testing.T) []sent {
	t.Helper()
	h.settleOutbox(t)
	var out []sent
	for _, m := range h.pub.Messages() {
		env, err := events.Decode(m.Value)
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != Topic {
			t.Fatalf("published on %q", m.Topic)
		}
		out = append(out, sent{typ: env.Type, key: string(m.Key), data: env.Data})
	}
	return out
}

func decodeAs[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// paidOrder makes the order of a paid intent through the webhook, as the
// processor's success does; it returns the order id.
func (h *harness) paidOrder(t *testing.T, intentID string) string {
	t.Helper()
	r := h.signed(t, succeededEvent(t, "evt_paid_"+intentID, intentID))
	orderID, ok := strings.CutPrefix(r.body, textOrderCreated)
	if r.status != 200 || !ok {
		t.Fatalf("the payment made no order: %d %s", r.status, r.body)
	}
	return orderID
}

func refundRequested(orderID, intentID string, amount money.Fils, full bool) customers.RefundRequested {
	return customers.RefundRequested{RefundID: "rfd_" + ids.New("orders")[4:], OrderID: orderID, StoreID: testStore, CustomerID: testCustomer,
		PaymentIntentID: intentID, Amount: amount, Currency: "aed", Full: full, Reason: "damaged", Origin: customers.RefundByAdmin, RequestedBy: "admin-1"}
}

// TestRefundRequestIsAskedOfTheProcessorOnce: the consumer asks the
// processor (stripe-go's form, Idempotency-Key = refundId, metadata refundId
// and orderId, no amount for a full refund) and records the refund
// submitted, publishing nothing; a redelivered request asks nothing more.
func TestRefundRequestIsAskedOfTheProcessorOnce(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := ids.New("orders")

	partial := refundRequested(orderID, "pi_r1", 2500, false)
	env := refundEnvelope(t, partial)
	if err := h.consume(t, env); err != nil {
		t.Fatal(err)
	}
	reqs := proc.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests to the processor", len(reqs))
	}
	q := reqs[0]
	if q.method != "POST" || q.path != "/v1/refunds" || q.key != partial.RefundID || q.form.Get("payment_intent") != "pi_r1" ||
		q.form.Get("amount") != "2500" || q.form.Get("metadata[refundId]") != partial.RefundID || q.form.Get("metadata[orderId]") != orderID ||
		q.form.Get("reason") != refundReason {
		t.Fatalf("request %+v", q)
	}
	r := h.refund(t, partial.RefundID)
	if r == nil || r.Status != domain.RefundSubmitted || r.ProcessorRefundID != "re_1" || r.OrderID != orderID || r.PaymentIntentID != "pi_r1" ||
		r.Requested != 2500 || r.Amount != 2500 || r.Origin != domain.OriginMarketplace || r.SubmittedAt.IsZero() {
		t.Fatalf("recorded %+v", r)
	}
	// Redelivered (the same event, or a copy under another id): not asked again.
	if err := h.consume(t, env); err != nil {
		t.Fatal(err)
	}
	if err := h.consume(t, refundEnvelope(t, partial)); err != nil {
		t.Fatal(err)
	}
	if n := len(proc.requests()); n != 1 {
		t.Fatalf("the processor was asked %d times", n)
	}

	full := refundRequested(orderID, "pi_r1", 13250, true)
	if err := h.consume(t, refundEnvelope(t, full)); err != nil {
		t.Fatal(err)
	}
	reqs = proc.requests()
	if len(reqs) != 2 || reqs[1].form.Has("amount") || reqs[1].key != full.RefundID {
		t.Fatalf("a full refund was asked %+v", reqs[1:])
	}
	if r := h.refund(t, full.RefundID); r.Status != domain.RefundSubmitted || !r.Full || r.ProcessorRefundID != "re_2" {
		t.Fatalf("full refund recorded %+v", r)
	}
	if p := h.published(t); len(p) != 0 {
		t.Fatalf("a submission published %+v", p)
	}
}

// TestRefundRefusedByTheProcessor: a 4xx refusal records the refund failed
// and publishes payment.refund_failed with the processor's reason, once.
func TestRefundRefusedByTheProcessor(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	proc.answer(400, `{"error":{"type":"invalid_request_error","code":"amount_too_large","param":"amount","message":"Refund amount is greater than unrefunded amount on charge"}}`)
	d := refundRequested(ids.New("orders"), "pi_r2", 99_00, false)
	env := refundEnvelope(t, d)
	if err := h.consume(t, env); err != nil {
		t.Fatal(err)
	}
	r := h.refund(t, d.RefundID)
	if r == nil || r.Status != domain.RefundFailed || !strings.HasPrefix(r.FailureReason, "amount_too_large: Refund amount is greater") {
		t.Fatalf("recorded %+v", r)
	}
	if err := h.consume(t, env); err != nil {
		t.Fatal(err)
	}
	p := h.published(t)
	if len(p) != 1 || p[0].typ != contract.EventPaymentRefundFailed || p[0].key != "pi_r2" {
		t.Fatalf("published %+v", p)
	}
	got := decodeAs[contract.PaymentRefundFailed](t, p[0].data)
	want := contract.PaymentRefundFailed{RefundID: d.RefundID, OrderID: d.OrderID, PaymentIntentID: "pi_r2", Amount: 99_00, Currency: "aed", FailureReason: r.FailureReason}
	if got != want {
		t.Fatalf("refund_failed %+v, want %+v", got, want)
	}
	if n := len(proc.requests()); n != 1 {
		t.Fatalf("the processor was asked %d times", n)
	}
}

// TestRefundWaitsWhileTheProcessorFails: unreachable, 5xx, a rate limit or
// a refused key: the handler's error is marked events.Retry (the event waits,
// never dead-lettered) and nothing is recorded or published; once the
// processor answers, the refund is submitted.
func TestRefundWaitsWhileTheProcessorFails(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	d := refundRequested(ids.New("orders"), "pi_r3", 10_00, false)
	env := refundEnvelope(t, d)
	for _, c := range []struct {
		name   string
		url    string
		status int
		body   string
	}{
		{"unreachable", closedURL(t), 0, ""},
		{"processor error", proc.srv.URL, 500, `{"error":{"type":"api_error","message":"Something went wrong"}}`},
		{"a proxy's page", proc.srv.URL, 502, `<html>Bad gateway</html>`},
		{"rate limited", proc.srv.URL, 429, `{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests"}}`},
		{"bad key", proc.srv.URL, 401, `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided"}}`},
		{"the key in use", proc.srv.URL, 400, `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters"}}`},
	} {
		h.useProcessor(c.url)
		proc.answer(c.status, c.body)
		if err := h.consume(t, env); !events.IsRetry(err) {
			t.Fatalf("%s: %v, want an error marked Retry", c.name, err)
		}
		if r := h.refund(t, d.RefundID); r != nil {
			t.Fatalf("%s: recorded %+v", c.name, r)
		}
	}
	h.svc.processor = nil // not configured: waits too
	if err := h.consume(t, env); !events.IsRetry(err) {
		t.Fatalf("no processor: %v", err)
	}
	h.useProcessor(proc.srv.URL)
	proc.answer(0, "")
	if err := h.consume(t, env); err != nil {
		t.Fatal(err)
	}
	if r := h.refund(t, d.RefundID); r == nil || r.Status != domain.RefundSubmitted {
		t.Fatalf("recorded %+v", r)
	}
	if p := h.published(t); len(p) != 0 {
		t.Fatalf("published %+v", p)
	}
}

// TestMalformedRefundRequestIsTheEventsFault: a request the consumer cannot
// act on is a plain error (spent attempts, then dead-lettered), not a retry,
// and the processor is not asked.
func TestMalformedRefundRequestIsTheEventsFault(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	good := refundRequested(ids.New("orders"), "pi_r4", 10_00, false)
	for name, mutate := range map[string]func(*customers.RefundRequested){
		"no refund id":   func(d *customers.RefundRequested) { d.RefundID = " " },
		"bad order id":   func(d *customers.RefundRequested) { d.OrderID = "ord_x" },
		"no intent":      func(d *customers.RefundRequested) { d.PaymentIntentID = "" },
		"no amount":      func(d *customers.RefundRequested) { d.Amount = 0 },
		"negative":       func(d *customers.RefundRequested) { d.Amount = -5 },
		"too large":      func(d *customers.RefundRequested) { d.Amount = MaxCharge + 1 },
		"ok if it's all": nil,
	} {
		d := good
		d.RefundID = "rfd_" + name
		if mutate == nil {
			d.Full, d.Amount = true, 0
			if err := h.consume(t, refundEnvelope(t, d)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		mutate(&d)
		err := h.consume(t, refundEnvelope(t, d))
		if err == nil || events.IsRetry(err) {
			t.Fatalf("%s: %v, want a plain error", name, err)
		}
	}
	if n := len(proc.requests()); n != 1 {
		t.Fatalf("the processor was asked %d times", n)
	}
}

// refundObj is a processor Refund as its webhooks carry it.
func refundObj(id, intentID string, amount int64, status string, meta map[string]any) map[string]any {
	o := map[string]any{"id": id, "object": "refund", "amount": amount, "currency": "aed", "payment_intent": intentID, "charge": "ch_" + intentID,
		"status": status, "reason": "requested_by_customer"}
	if meta != nil {
		o["metadata"] = meta
	} else {
		o["metadata"] = map[string]any{}
	}
	return o
}

func chargeRefunded(t *testing.T, eventID, intentID string, refunds ...map[string]any) []byte {
	var total int64
	for _, r := range refunds {
		if r["status"] == "succeeded" {
			total += r["amount"].(int64)
		}
	}
	return eventJSON(t, eventID, typeChargeRefunded, map[string]any{"id": "ch_" + intentID, "object": "charge", "amount": 15750,
		"amount_refunded": total, "currency": "aed", "payment_intent": intentID, "refunded": total == 15750, "metadata": validMetadata(),
		"refunds": map[string]any{"object": "list", "data": refunds}})
}

// TestChargeRefundedConfirmsEachRefundOnce: each succeeded refund a
// charge.refunded lists is recorded and published once, however often later
// events list it again; a redelivered event is answered from its record; a
// refund made at the processor (no refundId) is published with origin
// processor, its re_ id and the intent's order.
func TestChargeRefundedConfirmsEachRefundOnce(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := h.paidOrder(t, "pi_c1")
	first := refundRequested(orderID, "pi_c1", 2500, false)
	if err := h.consume(t, refundEnvelope(t, first)); err != nil {
		t.Fatal(err)
	}
	meta := func(d customers.RefundRequested) map[string]any {
		return map[string]any{"refundId": d.RefundID, "orderId": d.OrderID}
	}
	re1 := refundObj("re_1", "pi_c1", 2500, "succeeded", meta(first))
	body := chargeRefunded(t, "evt_cr1", "pi_c1", re1)
	wantText(t, h.signed(t, body), 200, textRefundsRecorded+"1")
	wantText(t, h.signed(t, body), 200, textEventAlreadyProcessed)
	if r := h.refund(t, first.RefundID); r.Status != domain.RefundSucceeded || r.EventID != "evt_cr1" || r.SettledAt.IsZero() {
		t.Fatalf("refund %+v", r)
	}

	// The second refund, still pending, then succeeded: the first is listed again each time.
	second := refundRequested(orderID, "pi_c1", 1000, false)
	re2 := refundObj("re_2", "pi_c1", 1000, "pending", meta(second))
	wantText(t, h.signed(t, chargeRefunded(t, "evt_cr2", "pi_c1", re1, re2)), 200, textNothingNew)
	re2["status"] = "succeeded"
	wantText(t, h.signed(t, chargeRefunded(t, "evt_cr3", "pi_c1", re1, re2)), 200, textRefundsRecorded+"1")
	wantText(t, h.signed(t, chargeRefunded(t, "evt_cr4", "pi_c1", re1, re2)), 200, textNothingNew)
	if r := h.refund(t, second.RefundID); r == nil || r.Status != domain.RefundSucceeded || r.ProcessorRefundID != "re_2" || r.Amount != 1000 {
		t.Fatalf("a refund heard of first from the webhook: %+v", r)
	}
	// Its request arrives late: recorded already, so the processor is not asked.
	if err := h.consume(t, refundEnvelope(t, second)); err != nil {
		t.Fatal(err)
	}
	if n := len(proc.requests()); n != 1 {
		t.Fatalf("the processor was asked %d times", n)
	}
	if r := h.refund(t, second.RefundID); r.Status != domain.RefundSucceeded || r.Amount != 1000 || r.EventID != "evt_cr3" {
		t.Fatalf("after its late request: %+v", r)
	}

	// A refund made at the processor's dashboard: no refundId.
	re3 := refundObj("re_3", "pi_c1", 500, "succeeded", nil)
	wantText(t, h.signed(t, chargeRefunded(t, "evt_cr5", "pi_c1", re1, re2, re3)), 200, textRefundsRecorded+"1")

	p := h.published(t)
	if len(p) != 3 {
		t.Fatalf("published %+v", p)
	}
	want := []contract.PaymentRefunded{
		{RefundID: first.RefundID, ProcessorRefundID: "re_1", OrderID: orderID, PaymentIntentID: "pi_c1", Amount: 2500, Currency: "aed", Origin: domain.OriginMarketplace},
		{RefundID: second.RefundID, ProcessorRefundID: "re_2", OrderID: orderID, PaymentIntentID: "pi_c1", Amount: 1000, Currency: "aed", Origin: domain.OriginMarketplace},
		{RefundID: "re_3", ProcessorRefundID: "re_3", OrderID: orderID, PaymentIntentID: "pi_c1", Amount: 500, Currency: "aed", Origin: domain.OriginProcessor},
	}
	for i, w := range want {
		if p[i].typ != contract.EventPaymentRefunded || p[i].key != "pi_c1" {
			t.Fatalf("event %d: %+v", i, p[i])
		}
		if got := decodeAs[contract.PaymentRefunded](t, p[i].data); got != w {
			t.Fatalf("event %d: %+v, want %+v", i, got, w)
		}
	}
	if n := len(h.processed(t)); n != 6 { // the payment and five refund events
		t.Fatalf("%d events recorded", n)
	}
}

// TestRefundFailed: refund.failed fails a submitted refund and publishes
// payment.refund_failed once; a late failure of a succeeded refund, or a
// success after a failure, changes nothing; a refund made at the processor
// that failed is recorded, told to nobody.
func TestRefundFailed(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := h.paidOrder(t, "pi_f1")
	d := refundRequested(orderID, "pi_f1", 3000, false)
	if err := h.consume(t, refundEnvelope(t, d)); err != nil {
		t.Fatal(err)
	}
	failed := refundObj("re_1", "pi_f1", 3000, "failed", map[string]any{"refundId": d.RefundID, "orderId": orderID})
	failed["failure_reason"] = "expired_or_canceled_card"
	body := eventJSON(t, "evt_rf1", typeRefundFailed, failed)
	wantText(t, h.signed(t, body), 200, textRefundFailed)
	wantText(t, h.signed(t, body), 200, textEventAlreadyProcessed)
	wantText(t, h.signed(t, eventJSON(t, "evt_rf1b", typeRefundFailed, failed)), 200, textNothingNew)
	// The processor never says it succeeded after all; if it did, nothing changes.
	failed["status"] = "succeeded"
	wantText(t, h.signed(t, chargeRefunded(t, "evt_rf2", "pi_f1", failed)), 200, textNothingNew)
	if r := h.refund(t, d.RefundID); r.Status != domain.RefundFailed || r.FailureReason != "expired_or_canceled_card" {
		t.Fatalf("refund %+v", r)
	}

	// A success, then a late failure of it: nothing.
	ok := refundRequested(orderID, "pi_f1", 1000, false)
	if err := h.consume(t, refundEnvelope(t, ok)); err != nil {
		t.Fatal(err)
	}
	okObj := refundObj("re_2", "pi_f1", 1000, "succeeded", map[string]any{"refundId": ok.RefundID, "orderId": orderID})
	wantText(t, h.signed(t, chargeRefunded(t, "evt_rf3", "pi_f1", okObj)), 200, textRefundsRecorded+"1")
	okObj["status"] = "failed"
	wantText(t, h.signed(t, eventJSON(t, "evt_rf4", typeRefundFailed, okObj)), 200, textNothingNew)

	// A dashboard refund that failed: recorded, not published.
	wantText(t, h.signed(t, eventJSON(t, "evt_rf5", typeRefundFailed, refundObj("re_9", "pi_f1", 700, "failed", nil))), 200, textNothingNew)
	if r := h.refund(t, "re_9"); r == nil || r.Status != domain.RefundFailed || r.Origin != domain.OriginProcessor || r.OrderID != orderID {
		t.Fatalf("dashboard refund %+v", r)
	}

	p := h.published(t)
	if len(p) != 2 || p[0].typ != contract.EventPaymentRefundFailed || p[1].typ != contract.EventPaymentRefunded {
		t.Fatalf("published %+v", p)
	}
	want := contract.PaymentRefundFailed{RefundID: d.RefundID, ProcessorRefundID: "re_1", OrderID: orderID, PaymentIntentID: "pi_f1", Amount: 3000,
		Currency: "aed", FailureReason: "expired_or_canceled_card"}
	if got := decodeAs[contract.PaymentRefundFailed](t, p[0].data); got != want {
		t.Fatalf("refund_failed %+v, want %+v", got, want)
	}
}

// TestRefundsAreOfTheIntentsOrder: a refund's order is the one its payment
// intent paid for, whatever its metadata says: a refund made at the
// processor's dashboard whose metadata names another order (succeeded or
// failed), and a refund heard of by webhook before its request, refund the
// intent's order; the order named is not touched.
func TestRefundsAreOfTheIntentsOrder(t *testing.T) {
	h := newHarness(t, testSecret)
	orderID := h.paidOrder(t, "pi_o1")
	otherID := h.paidOrder(t, "pi_o2")
	if orderID == otherID {
		t.Fatal("two payments made one order")
	}
	named := map[string]any{"orderId": otherID}
	wantText(t, h.signed(t, chargeRefunded(t, "evt_o1", "pi_o1", refundObj("re_dash", "pi_o1", 500, "succeeded", named))), 200, textRefundsRecorded+"1")
	wantText(t, h.signed(t, eventJSON(t, "evt_o2", typeRefundFailed, refundObj("re_dashf", "pi_o1", 700, "failed", named))), 200, textNothingNew)
	early := map[string]any{"refundId": "rfd_early", "orderId": otherID}
	wantText(t, h.signed(t, chargeRefunded(t, "evt_o3", "pi_o1", refundObj("re_early", "pi_o1", 300, "succeeded", early))), 200, textRefundsRecorded+"1")
	for _, id := range []string{"re_dash", "re_dashf", "rfd_early"} {
		if r := h.refund(t, id); r == nil || r.OrderID != orderID || r.PaymentIntentID != "pi_o1" {
			t.Fatalf("refund %s: %+v, want order %s", id, r, orderID)
		}
	}
	p := h.published(t)
	if len(p) != 2 {
		t.Fatalf("published %+v", p)
	}
	for i, want := range []string{"re_dash", "rfd_early"} {
		if got := decodeAs[contract.PaymentRefunded](t, p[i].data); got.RefundID != want || got.OrderID != orderID || got.PaymentIntentID != "pi_o1" {
			t.Fatalf("payment.refunded %+v, want %s of order %s", got, want, orderID)
		}
	}
}

// TestRefundMetadataNamingAnotherIntentsRefund: a refund made at the
// processor's dashboard on another order's payment intent, whose metadata
// names our pending refund (anyone can type it there), is a refund made at
// the processor of that intent's order, under its re_ id (succeeded:
// published; failed: recorded only); our refund is not touched and still
// settles by its own processor refund later.
func TestRefundMetadataNamingAnotherIntentsRefund(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderX := h.paidOrder(t, "pi_mx")
	orderY := h.paidOrder(t, "pi_my")
	ours := refundRequested(orderX, "pi_mx", 2500, false)
	if err := h.consume(t, refundEnvelope(t, ours)); err != nil {
		t.Fatal(err)
	}
	pending := h.refund(t, ours.RefundID)
	if pending == nil || pending.Status != domain.RefundSubmitted || pending.ProcessorRefundID == "" {
		t.Fatalf("our refund %+v", pending)
	}
	forged := map[string]any{"refundId": ours.RefundID, "orderId": orderX}
	wantText(t, h.signed(t, chargeRefunded(t, "evt_m1", "pi_my", refundObj("re_dash", "pi_my", 5000, "succeeded", forged))), 200, textRefundsRecorded+"1")
	wantText(t, h.signed(t, eventJSON(t, "evt_m2", typeRefundFailed, refundObj("re_dashf", "pi_my", 700, "failed", forged))), 200, textNothingNew)
	if r := h.refund(t, ours.RefundID); *r != *pending {
		t.Fatalf("our refund was touched: %+v, was %+v", r, pending)
	}
	for id, status := range map[string]string{"re_dash": domain.RefundSucceeded, "re_dashf": domain.RefundFailed} {
		r := h.refund(t, id)
		if r == nil || r.Status != status || r.Origin != domain.OriginProcessor || r.OrderID != orderY || r.PaymentIntentID != "pi_my" || r.ProcessorRefundID != id {
			t.Fatalf("refund %s: %+v, want a processor-made refund of order %s", id, r, orderY)
		}
	}
	// Our own refund's outcome still settles it.
	own := refundObj(pending.ProcessorRefundID, "pi_mx", 2500, "succeeded", forged)
	wantText(t, h.signed(t, chargeRefunded(t, "evt_m3", "pi_mx", own)), 200, textRefundsRecorded+"1")
	if r := h.refund(t, ours.RefundID); r.Status != domain.RefundSucceeded || r.OrderID != orderX || r.Amount != 2500 || r.EventID != "evt_m3" {
		t.Fatalf("our refund %+v", r)
	}
	// The dashboard's refund listed again: nothing new.
	wantText(t, h.signed(t, chargeRefunded(t, "evt_m4", "pi_my", refundObj("re_dash", "pi_my", 5000, "succeeded", forged))), 200, textNothingNew)

	p := h.published(t)
	want := []contract.PaymentRefunded{
		{RefundID: "re_dash", ProcessorRefundID: "re_dash", OrderID: orderY, PaymentIntentID: "pi_my", Amount: 5000, Currency: "aed", Origin: domain.OriginProcessor},
		{RefundID: ours.RefundID, ProcessorRefundID: pending.ProcessorRefundID, OrderID: orderX, PaymentIntentID: "pi_mx", Amount: 2500, Currency: "aed",
			Origin: domain.OriginMarketplace},
	}
	if len(p) != len(want) {
		t.Fatalf("published %+v", p)
	}
	for i, w := range want {
		if got := decodeAs[contract.PaymentRefunded](t, p[i].data); p[i].typ != contract.EventPaymentRefunded || got != w {
			t.Fatalf("event %d: %s %+v, want %+v", i, p[i].typ, got, w)
		}
	}
}

// TestRefundMetadataNamingAnotherProcessorRefund: once our refund's
// processor id is recorded, another refund of the same intent whose metadata
// names ours (made at the dashboard) does not settle it, succeeded or
// failed: it is a refund made at the processor of the intent's order; ours
// settles by its own.
func TestRefundMetadataNamingAnotherProcessorRefund(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := h.paidOrder(t, "pi_mp")
	ours := refundRequested(orderID, "pi_mp", 2500, false)
	if err := h.consume(t, refundEnvelope(t, ours)); err != nil {
		t.Fatal(err)
	}
	pending := h.refund(t, ours.RefundID)
	if pending == nil || pending.Status != domain.RefundSubmitted || pending.ProcessorRefundID == "" {
		t.Fatalf("our refund %+v", pending)
	}
	meta := map[string]any{"refundId": ours.RefundID, "orderId": orderID}
	other := refundObj("re_other", "pi_mp", 9000, "succeeded", meta)
	wantText(t, h.signed(t, chargeRefunded(t, "evt_p1", "pi_mp", other)), 200, textRefundsRecorded+"1")
	wantText(t, h.signed(t, eventJSON(t, "evt_p2", typeRefundFailed, refundObj("re_otherf", "pi_mp", 800, "failed", meta))), 200, textNothingNew)
	if r := h.refund(t, ours.RefundID); *r != *pending {
		t.Fatalf("our refund was touched: %+v, was %+v", r, pending)
	}
	if r := h.refund(t, "re_other"); r == nil || r.Status != domain.RefundSucceeded || r.Origin != domain.OriginProcessor || r.OrderID != orderID || r.Amount != 9000 {
		t.Fatalf("the other refund %+v", r)
	}
	if r := h.refund(t, "re_otherf"); r == nil || r.Status != domain.RefundFailed || r.Origin != domain.OriginProcessor {
		t.Fatalf("the other failed refund %+v", r)
	}
	// Ours, listed with the other: settled by its own processor id and amount.
	own := refundObj(pending.ProcessorRefundID, "pi_mp", 2500, "succeeded", meta)
	wantText(t, h.signed(t, chargeRefunded(t, "evt_p3", "pi_mp", other, own)), 200, textRefundsRecorded+"1")
	if r := h.refund(t, ours.RefundID); r.Status != domain.RefundSucceeded || r.Amount != 2500 || r.EventID != "evt_p3" {
		t.Fatalf("our refund %+v", r)
	}
	// After ours succeeded, another one naming it is still not ours.
	late := refundObj("re_late", "pi_mp", 100, "succeeded", meta)
	wantText(t, h.signed(t, chargeRefunded(t, "evt_p4", "pi_mp", other, own, late)), 200, textRefundsRecorded+"1")
	if r := h.refund(t, ours.RefundID); r.Status != domain.RefundSucceeded || r.Amount != 2500 || r.EventID != "evt_p3" {
		t.Fatalf("our refund after another %+v", r)
	}
	p := h.published(t)
	var got []string
	for _, e := range p {
		r := decodeAs[contract.PaymentRefunded](t, e.data)
		got = append(got, r.RefundID+"/"+r.Origin+"/"+strconv.FormatInt(int64(r.Amount), 10))
	}
	want := []string{"re_other/processor/9000", ours.RefundID + "/marketplace/2500", "re_late/processor/100"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("published %v, want %v", got, want)
	}
}

// TestMisnamedRefundsThatCannotBeRecordedYet: a refund whose metadata names
// our refund but whose intent has no order recorded waits (500, retried),
// and one whose re_ id is already another refund's record id (its metadata
// named that id) is not guessed at (500): nothing is written, ours untouched.
func TestMisnamedRefundsThatCannotBeRecordedYet(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := h.paidOrder(t, "pi_mw")
	ours := refundRequested(orderID, "pi_mw", 2500, false)
	if err := h.consume(t, refundEnvelope(t, ours)); err != nil {
		t.Fatal(err)
	}
	pending := h.refund(t, ours.RefundID)
	meta := map[string]any{"refundId": ours.RefundID, "orderId": orderID}
	r := h.signed(t, chargeRefunded(t, "evt_w1", "pi_unpaid", refundObj("re_w1", "pi_unpaid", 100, "succeeded", meta)))
	if m := wantJSON(t, r, 500, "error", "eventId"); !strings.Contains(m["error"].(string), "no order is recorded for payment intent pi_unpaid") {
		t.Fatalf("intent without an order: %s", r.body)
	}
	// A refund whose metadata names a re_ id is recorded under that id...
	named := map[string]any{"refundId": "re_w3"}
	wantText(t, h.signed(t, chargeRefunded(t, "evt_w2", "pi_mw", refundObj("re_w2", "pi_mw", 200, "succeeded", named))), 200, textRefundsRecorded+"1")
	// ...so the refund re_w3 itself, made at the dashboard, cannot be.
	r = h.signed(t, chargeRefunded(t, "evt_w3", "pi_mw", refundObj("re_w3", "pi_mw", 300, "succeeded", nil)))
	if m := wantJSON(t, r, 500, "error", "eventId"); !strings.Contains(m["error"].(string), "its id is another refund's record") {
		t.Fatalf("a refund whose id is taken: %s", r.body)
	}
	if r := h.refund(t, "re_w3"); r.ProcessorRefundID != "re_w2" || r.Amount != 200 {
		t.Fatalf("re_w3's record %+v", r)
	}
	for _, id := range []string{"re_w1", "re_w2"} {
		if r := h.refund(t, id); r != nil {
			t.Fatalf("%s recorded: %+v", id, r)
		}
	}
	if r := h.refund(t, ours.RefundID); *r != *pending {
		t.Fatalf("our refund was touched: %+v, was %+v", r, pending)
	}
	if p := h.published(t); len(p) != 1 {
		t.Fatalf("published %+v", p)
	}
}

// TestRefundEventsRefusedOrRetried: objects that are not what the event
// type carries are 400 (nothing recorded); a refund of an intent whose order
// is not recorded yet is 500 (the processor retries).
func TestRefundEventsRefusedOrRetried(t *testing.T) {
	h := newHarness(t, testSecret)
	good := refundObj("re_1", "pi_x1", 100, "failed", nil)
	for name, body := range map[string][]byte{
		"charge without refunds":  eventJSON(t, "evt_b1", typeChargeRefunded, map[string]any{"id": "ch_1", "currency": "aed", "payment_intent": "pi_x1"}),
		"charge without intent":   eventJSON(t, "evt_b2", typeChargeRefunded, map[string]any{"id": "ch_1", "currency": "aed", "refunds": map[string]any{"data": []any{}}}),
		"another intent's refund": chargeRefunded(t, "evt_b3", "pi_x1", refundObj("re_1", "pi_other", 100, "succeeded", nil)),
		"amount as a string": eventJSON(t, "evt_b4", typeRefundFailed, func() map[string]any {
			o := refundObj("re_1", "pi_x1", 0, "failed", nil)
			o["amount"] = "100"
			return o
		}()),
		"not failed":            eventJSON(t, "evt_b5", typeRefundFailed, refundObj("re_1", "pi_x1", 100, "succeeded", nil)),
		"not an object":         eventJSON(t, "evt_b6", typeRefundFailed, "re_1"),
		"metadata not a string": eventJSON(t, "evt_b7", typeRefundFailed, refundObj("re_1", "pi_x1", 100, "failed", map[string]any{"refundId": 5})),
	} {
		r := h.signed(t, body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
	r := h.signed(t, eventJSON(t, "evt_b8", typeRefundFailed, good))
	if m := wantJSON(t, r, 500, "error", "eventId"); !strings.Contains(m["error"].(string), "no order is recorded for payment intent pi_x1") {
		t.Fatalf("unknown intent: %s", r.body)
	}
	if n := len(h.processed(t)); n != 0 {
		t.Fatalf("%d events recorded", n)
	}
	if p := h.published(t); len(p) != 0 {
		t.Fatalf("published %+v", p)
	}
}

// TestConcurrentCopiesOfARefundConfirmation: several events confirming the
// same refund (and the refund's request) at once publish payment.refunded
// once: the refund's record is the guard (a concurrent insert runs the
// transaction again, which then sees it). The events are of the refund the
// processor makes for the request (its first: re_1), so the request and the
// events may land in either order; news of another processor refund naming
// this one is a refund made at the processor (TestRefundMetadataNamingAnotherProcessorRefund),
// which a CI run once reached here when the request landed first.
func TestConcurrentCopiesOfARefundConfirmation(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	orderID := h.paidOrder(t, "pi_cc")
	d := refundRequested(orderID, "pi_cc", 1500, false)
	obj := refundObj("re_1", "pi_cc", 1500, "succeeded", map[string]any{"refundId": d.RefundID, "orderId": orderID})
	var wg sync.WaitGroup
	replies := make([]reply, 8)
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = h.signed(t, chargeRefunded(t, "evt_cc"+strconv.Itoa(i), "pi_cc", obj))
		}()
	}
	wg.Add(1)
	var consumeErr error
	go func() { defer wg.Done(); consumeErr = h.consume(t, refundEnvelope(t, d)) }()
	wg.Wait()
	if consumeErr != nil {
		t.Fatal(consumeErr)
	}
	recorded := 0
	for _, r := range replies {
		switch {
		case r.status == 200 && r.body == textRefundsRecorded+"1":
			recorded++
		case r.status == 200 && r.body == textNothingNew:
		default:
			t.Fatalf("reply %d %s", r.status, r.body)
		}
	}
	p := h.published(t)
	if recorded != 1 || len(p) != 1 || p[0].typ != contract.EventPaymentRefunded {
		t.Fatalf("%d replies recorded it; published %+v", recorded, p)
	}
	if r := h.refund(t, d.RefundID); r.Status != domain.RefundSucceeded || r.ProcessorRefundID != "re_1" || r.Amount != 1500 {
		t.Fatalf("refund %+v", r)
	}
}

// TestRefundRequestIsConfirmedWithTheCustomersService: a refund request the
// customers service does not have as requested, of that amount, on an order
// paid with that intent (a forged or stale event) asks the processor
// nothing, records nothing and publishes nothing; the customers service
// unreachable, it waits.
func TestRefundRequestIsConfirmedWithTheCustomersService(t *testing.T) {
	h := newHarness(t, testSecret)
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	h.unconfirmed = true
	orderID := ids.New("orders")
	d := refundRequested(orderID, "pi_c1", 2500, false)
	requested := customers.RefundFact{RefundID: d.RefundID, Amount: 2500, Status: customers.RefundStatusRequested}
	cases := []struct {
		name  string
		facts *customers.OrderFacts
	}{
		{"no such order", nil},
		{"no such refund", &customers.OrderFacts{OrderID: orderID, PaymentIntentID: "pi_c1"}},
		{"another intent", &customers.OrderFacts{OrderID: orderID, PaymentIntentID: "pi_other", Refunds: []customers.RefundFact{requested}}},
		{"another amount", &customers.OrderFacts{OrderID: orderID, PaymentIntentID: "pi_c1",
			Refunds: []customers.RefundFact{{RefundID: d.RefundID, Amount: 2600, Status: customers.RefundStatusRequested}}}},
		{"already failed", &customers.OrderFacts{OrderID: orderID, PaymentIntentID: "pi_c1",
			Refunds: []customers.RefundFact{{RefundID: d.RefundID, Amount: 2500, Status: customers.RefundStatusFailed}}}},
	}
	for _, c := range cases {
		delete(h.orderFacts, orderID)
		if c.facts != nil {
			h.orderFacts[orderID] = *c.facts
		}
		if err := h.consume(t, refundEnvelope(t, d)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := len(proc.requests()); n != 0 || h.refund(t, d.RefundID) != nil {
			t.Fatalf("%s: the processor was asked %d times", c.name, n)
		}
	}
	if p := h.published(t); len(p) != 0 {
		t.Fatalf("unconfirmed requests published %+v", p)
	}
	h.svc.orderFacts = func(context.Context, []string) (map[string]customers.OrderFacts, error) {
		return nil, errors.New("customers: unreachable")
	}
	if err := h.consume(t, refundEnvelope(t, d)); err == nil || !events.IsRetry(err) {
		t.Fatalf("customers unreachable: %v, want a retry", err)
	}
	h.orderFacts[orderID] = customers.OrderFacts{OrderID: orderID, PaymentIntentID: "pi_c1", Refunds: []customers.RefundFact{requested}}
	h.svc.orderFacts = func(_ context.Context, ids []string) (map[string]customers.OrderFacts, error) {
		return map[string]customers.OrderFacts{orderID: h.orderFacts[orderID]}, nil
	}
	if err := h.consume(t, refundEnvelope(t, d)); err != nil {
		t.Fatal(err)
	}
	if n := len(proc.requests()); n != 1 || h.refund(t, d.RefundID) == nil {
		t.Fatalf("a confirmed request: %d requests", n)
	}
}
