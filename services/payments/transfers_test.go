package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
)

// fakeProcessor is an httptest server standing in for the payment
// processor's POST /v1/payouts (Stripe's API as stripe-go speaks it): it
// answers a pending payout, the same one again for the same Idempotency-Key,
// or, as the test sets, a refusal (400) or its own failure (500).
type fakeProcessor struct {
	srv *httptest.Server

	mu       sync.Mutex
	status   int // 0 or 200: answer the payout
	requests []payoutRequest
	byKey    map[string]string // Idempotency-Key -> po_ id
}

type payoutRequest struct {
	key  string
	form url.Values
}

func startFakeProcessor(t *testing.T) *fakeProcessor {
	t.Helper()
	f := &fakeProcessor{byKey: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/payouts" {
			http.NotFound(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			t.Errorf("the processor got an unreadable form: %v", err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		key := r.Header.Get("Idempotency-Key")
		f.requests = append(f.requests, payoutRequest{key: key, form: r.PostForm})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Stripe-Should-Retry", "false") // answer at once
		switch f.status {
		case http.StatusBadRequest:
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"type":"invalid_request_error","code":"balance_insufficient","message":"Insufficient funds in your balance"}}`)
			return
		case http.StatusInternalServerError:
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"type":"api_error","message":"Something went wrong"}}`)
			return
		}
		id, ok := f.byKey[key]
		if !ok {
			id = fmt.Sprintf("po_%d", len(f.byKey)+1)
			f.byKey[key] = id
		}
		meta := map[string]string{}
		for _, k := range []string{"payoutId", "storeId", "iban", "accountHolderName"} {
			meta[k] = r.PostForm.Get("metadata[" + k + "]")
		}
		amount := r.PostForm.Get("amount")
		b, _ := json.Marshal(map[string]any{"id": id, "object": "payout", "amount": json.RawMessage(amount), "currency": r.PostForm.Get("currency"),
			"status": "pending", "metadata": meta})
		w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProcessor) set(status int) { f.mu.Lock(); f.status = status; f.mu.Unlock() }

func (f *fakeProcessor) calls() []payoutRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]payoutRequest(nil), f.requests...)
}

// withProcessor points the harness's service at the fake processor.
func (h *harness) withProcessor(t *testing.T) *fakeProcessor {
	f := startFakeProcessor(t)
	h.svc.processor = newProcessor(&Settings{APIURL: f.srv.URL, SecretKey: "sk_test_x"}, slog.New(slog.DiscardHandler))
	return f
}

func newTransferArgs() *transferArgs {
	return &transferArgs{PayoutID: ids.New("payouts"), StoreID: testStore, Amount: 9800,
		IBAN: "AE070331234567890123456", AccountHolderName: "Sara Ahmed"}
}

func (h *harness) facts(t *testing.T, payoutIDs ...string) map[string]contract.Transfer {
	t.Helper()
	f, err := h.svc.getMoneyFacts(context.Background(), &contract.MoneyFactsArgs{PayoutIDs: payoutIDs})
	if err != nil {
		t.Fatal(err)
	}
	return f.Transfers
}

// createTransfer asks the processor once per payout, with the key
// payout:<payoutId>, the net amount in fils (aed) and the bank details in
// metadata; a second call answers the recorded transfer without asking
// again; a call for the payout with another amount or account is refused.
func TestCreateTransferOncePerPayout(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	ctx := context.Background()
	a := newTransferArgs()
	tr, err := h.svc.createTransfer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if tr.TransferID != "po_1" || tr.PayoutID != a.PayoutID || tr.StoreID != testStore || tr.Amount != 9800 || tr.Status != contract.TransferPending || tr.CreatedAt == 0 {
		t.Fatalf("transfer = %+v", tr)
	}
	calls := p.calls()
	if len(calls) != 1 {
		t.Fatalf("the processor was asked %d times", len(calls))
	}
	want := map[string]string{"amount": "9800", "currency": "aed", "metadata[payoutId]": a.PayoutID, "metadata[storeId]": testStore,
		"metadata[iban]": "AE070331234567890123456", "metadata[accountHolderName]": "Sara Ahmed"}
	for k, v := range want {
		if got := calls[0].form.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if calls[0].key != "payout:"+a.PayoutID {
		t.Errorf("Idempotency-Key = %q", calls[0].key)
	}

	again, err := h.svc.createTransfer(ctx, a)
	if err != nil || *again != *tr {
		t.Fatalf("second call = %+v %v, want %+v", again, err, tr)
	}
	if n := len(p.calls()); n != 1 {
		t.Fatalf("a second call asked the processor again (%d calls)", n)
	}
	if f := h.facts(t, a.PayoutID, ids.New("payouts")); len(f) != 1 || f[a.PayoutID] != *tr {
		t.Fatalf("getFacts = %+v", f)
	}

	other := *a
	other.Amount = 9900
	if _, err := h.svc.createTransfer(ctx, &other); !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "transfer_differs" {
		t.Fatalf("another amount for the payout: %v", err)
	}
	if n := len(p.calls()); n != 1 {
		t.Fatalf("a differing call asked the processor (%d calls)", n)
	}
}

// A refusal by the processor (4xx) is FAILED_PRECONDITION and leaves
// nothing recorded: the payout may be sent again once the cause is fixed.
func TestCreateTransferRefusedByTheProcessor(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	p.set(400)
	a := newTransferArgs()
	_, err := h.svc.createTransfer(context.Background(), a)
	if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "processor_refused" ||
		apperr.From(err).Details["processorCode"] != "balance_insufficient" {
		t.Fatalf("refused: %v %+v", err, apperr.From(err).Details)
	}
	if f := h.facts(t, a.PayoutID); len(f) != 0 {
		t.Fatalf("a refused transfer is recorded: %+v", f)
	}
	p.set(200)
	tr, err := h.svc.createTransfer(context.Background(), a)
	if err != nil || tr.TransferID == "" {
		t.Fatalf("sent again: %+v %v", tr, err)
	}
}

// The processor failing (5xx) or unreachable is UNAVAILABLE; the transfer
// stays recorded as asked (pending, no processor id), and the call again
// asks the processor with the same key, which answers the same payout.
func TestCreateTransferWhileTheProcessorIsDown(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	a := newTransferArgs()
	ctx := context.Background()

	// The processor made the payout, but its answer was lost (a 500 after).
	p.set(200)
	first, err := h.svc.createTransfer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Collection("transfers").UpdateOne(ctx, map[string]any{"_id": a.PayoutID}, map[string]any{"$unset": map[string]any{"transferId": ""}}); err != nil {
		t.Fatal(err)
	}
	p.set(500)
	if _, err := h.svc.createTransfer(ctx, a); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("processor failing: %v", err)
	}
	if f := h.facts(t, a.PayoutID); f[a.PayoutID].Status != contract.TransferPending || f[a.PayoutID].TransferID != "" {
		t.Fatalf("after a 500: %+v", f)
	}
	p.set(200)
	tr, err := h.svc.createTransfer(ctx, a)
	if err != nil || tr.TransferID != first.TransferID {
		t.Fatalf("called again: %+v %v, want %s", tr, err, first.TransferID)
	}
	calls := p.calls()
	if len(calls) != 3 || calls[2].key != calls[0].key {
		t.Fatalf("processor calls %+v", calls)
	}

	// Unreachable.
	h.svc.processor = newProcessor(&Settings{APIURL: closedURL(t), SecretKey: "sk_test_x"}, slog.New(slog.DiscardHandler))
	if _, err := h.svc.createTransfer(ctx, newTransferArgs()); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("processor unreachable: %v", err)
	}
}

func TestCreateTransferRefusesBadArguments(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	for name, change := range map[string]func(*transferArgs){
		"amountFils":        func(a *transferArgs) { a.Amount = 0 },
		"too much":          func(a *transferArgs) { a.Amount = int64(MaxCharge) + 1 },
		"iban":              func(a *transferArgs) { a.IBAN = "  " },
		"accountHolderName": func(a *transferArgs) { a.AccountHolderName = "\x00" },
	} {
		a := newTransferArgs()
		change(a)
		if _, err := h.svc.createTransfer(context.Background(), a); !apperr.Is(err, apperr.InvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(p.calls()) != 0 {
		t.Fatal("bad arguments reached the processor")
	}
}

// payoutObject is the processor's Payout of a payout event.
func payoutObject(id string, amount money.Fils, status, payoutID string) map[string]any {
	o := map[string]any{"id": id, "object": "payout", "amount": int64(amount), "currency": "aed", "status": status, "arrival_date": 1_800_000_000,
		"metadata": map[string]any{"payoutId": payoutID, "storeId": testStore}}
	if status == "failed" {
		o["failure_code"], o["failure_message"] = "account_closed", "The bank account has been closed"
	}
	return o
}

// transferEvent is the published event's type, key and data.
func transferEvent(t *testing.T, m events.Message) (string, string, contract.Transfer) {
	t.Helper()
	var env events.Envelope
	if err := json.Unmarshal(m.Value, &env); err != nil {
		t.Fatal(err)
	}
	var tr contract.Transfer
	if err := json.Unmarshal(env.Data, &tr); err != nil {
		t.Fatal(err)
	}
	if m.Topic != contract.Topic {
		t.Fatalf("published on %q", m.Topic)
	}
	return env.Type, string(m.Key), tr
}

// payout.paid settles the pending transfer and publishes
// payment.transfer_paid (key: the payout id); its redelivery and a late
// payout.failed are acknowledged and change nothing.
func TestPayoutPaidWebhook(t *testing.T) {
	h := newHarness(t, testSecret)
	h.withProcessor(t)
	a := newTransferArgs()
	tr, err := h.svc.createTransfer(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	paid := eventJSON(t, "evt_paid", "payout.paid", payoutObject(tr.TransferID, 9800, "paid", a.PayoutID))
	wantText(t, h.signed(t, paid), 200, "Transfer paid")
	typ, key, data := transferEvent(t, h.waitPublished(t, 1)[0])
	if typ != contract.EventTransferPaid || key != a.PayoutID || data.Status != contract.TransferPaid || data.TransferID != tr.TransferID ||
		data.Amount != 9800 || data.SettledAt == 0 {
		t.Fatalf("published %s %s %+v", typ, key, data)
	}
	wantText(t, h.signed(t, paid), 200, "Transfer already settled")
	late := eventJSON(t, "evt_late", "payout.failed", payoutObject(tr.TransferID, 9800, "failed", a.PayoutID))
	wantText(t, h.signed(t, late), 200, "Transfer already settled")
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 1 {
		t.Fatalf("%d events published", n)
	}
	if f := h.facts(t, a.PayoutID)[a.PayoutID]; f.Status != contract.TransferPaid || f.FailureCode != "" {
		t.Fatalf("facts after the late failure: %+v", f)
	}
	// A call again answers the settled transfer.
	if again, err := h.svc.createTransfer(context.Background(), a); err != nil || again.Status != contract.TransferPaid {
		t.Fatalf("createTransfer after paid: %+v %v", again, err)
	}
}

// payout.failed settles the transfer failed, with the processor's reason,
// and publishes payment.transfer_failed; a later payout.paid is ignored.
func TestPayoutFailedWebhook(t *testing.T) {
	h := newHarness(t, testSecret)
	h.withProcessor(t)
	a := newTransferArgs()
	tr, err := h.svc.createTransfer(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	failed := eventJSON(t, "evt_failed", "payout.failed", payoutObject(tr.TransferID, 9800, "failed", a.PayoutID))
	wantText(t, h.signed(t, failed), 200, "Transfer failed")
	typ, key, data := transferEvent(t, h.waitPublished(t, 1)[0])
	if typ != contract.EventTransferFailed || key != a.PayoutID || data.Status != contract.TransferFailed || data.FailureCode != "account_closed" ||
		data.FailureMessage != "The bank account has been closed" {
		t.Fatalf("published %s %s %+v", typ, key, data)
	}
	wantText(t, h.signed(t, eventJSON(t, "evt_failed_2", "payout.failed", payoutObject(tr.TransferID, 9800, "failed", a.PayoutID))), 200, "Transfer already settled")
	wantText(t, h.signed(t, eventJSON(t, "evt_paid_late", "payout.paid", payoutObject(tr.TransferID, 9800, "paid", a.PayoutID))), 200, "Transfer already settled")
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 1 {
		t.Fatalf("%d events published", n)
	}
}

// The webhook may come before the processor's answer is recorded: it
// finds the transfer by its payout id, records the processor's id, and the
// call again answers the settled transfer.
func TestPayoutWebhookBeforeTheAnswer(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	a := newTransferArgs()
	p.set(500)
	if _, err := h.svc.createTransfer(context.Background(), a); !apperr.Is(err, apperr.Unavailable) {
		t.Fatal(err)
	}
	wantText(t, h.signed(t, eventJSON(t, "evt_early", "payout.paid", payoutObject("po_1", 9800, "paid", a.PayoutID))), 200, "Transfer paid")
	p.set(200)
	tr, err := h.svc.createTransfer(context.Background(), a)
	if err != nil || tr.TransferID != "po_1" || tr.Status != contract.TransferPaid {
		t.Fatalf("called again: %+v %v", tr, err)
	}
}

// Payout events the marketplace did not send are acknowledged and ignored;
// one that contradicts its transfer, or is malformed, is refused (400).
func TestPayoutWebhookRefusalsAndStrangers(t *testing.T) {
	h := newHarness(t, testSecret)
	h.withProcessor(t)
	a := newTransferArgs()
	tr, err := h.svc.createTransfer(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	platforms := payoutObject("po_platform", 500000, "paid", "")
	platforms["metadata"] = map[string]any{}
	wantText(t, h.signed(t, eventJSON(t, "evt_platform", "payout.paid", platforms)), 200, "Payout not sent by the marketplace: ignored")
	wantText(t, h.signed(t, eventJSON(t, "evt_unknown", "payout.paid", payoutObject("po_9", 9800, "paid", ids.New("payouts")))), 200, "Unknown transfer: ignored")
	for name, obj := range map[string]any{
		"another payout": payoutObject("po_other", 9800, "paid", a.PayoutID),
		"another amount": payoutObject(tr.TransferID, 9900, "paid", a.PayoutID),
		"wrong status":   payoutObject(tr.TransferID, 9800, "failed", a.PayoutID),
		"not a payout id": func() any {
			o := payoutObject("pi_1", 9800, "paid", a.PayoutID)
			return o
		}(),
		"no amount": map[string]any{"id": tr.TransferID, "object": "payout", "currency": "aed", "metadata": map[string]any{"payoutId": a.PayoutID}},
		"a string":  "po_1",
	} {
		r := h.signed(t, eventJSON(t, "evt_"+name, "payout.paid", obj))
		if r.status != 400 {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 0 {
		t.Fatalf("%d events published", n)
	}
	if f := h.facts(t, a.PayoutID)[a.PayoutID]; f.Status != contract.TransferPending {
		t.Fatalf("transfer after refusals: %+v", f)
	}
}

// The operations as the payouts service calls them: the contract's types
// over JSON, through the registry. amountFils travels as whole fils and is
// read as such (an AED reading would send 100 times the amount).
func TestTransferOperationsOverTheContract(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	reg := h.svc.built().Registry
	payoutID := ids.New("payouts")
	raw, _ := json.Marshal(contract.TransferArgs{PayoutID: payoutID, StoreID: testStore, Amount: 9800, IBAN: "AE070331234567890123456", AccountHolderName: "Sara"})
	res, err := reg.Invoke(context.Background(), ops.Mutation, contract.OpCreateTransfer, raw, true)
	if err != nil {
		t.Fatal(err)
	}
	var tr contract.Transfer
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, &tr); err != nil || tr.Amount != 9800 || tr.PayoutID != payoutID {
		t.Fatalf("answer %s: %v", b, err)
	}
	if got := p.calls()[0].form.Get("amount"); got != "9800" {
		t.Fatalf("the processor was asked for %s", got)
	}
	raw, _ = json.Marshal(contract.MoneyFactsArgs{PayoutIDs: []string{payoutID}})
	res, err = reg.Invoke(context.Background(), ops.Query, contract.OpGetMoneyFacts, raw, true)
	if err != nil {
		t.Fatal(err)
	}
	var facts contract.MoneyFacts
	b, _ = json.Marshal(res)
	if err := json.Unmarshal(b, &facts); err != nil || facts.Transfers[payoutID] != tr || facts.Disputes == nil {
		t.Fatalf("facts %s: %v", b, err)
	}
	// Not for outsiders.
	if _, err := reg.Invoke(context.Background(), ops.Mutation, contract.OpCreateTransfer, raw, false); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("an outsider's call: %v", err)
	}
}

// Which processor errors are a refusal (nothing made: the transfer is
// forgotten) and which may hide a payout it made (kept, UNAVAILABLE).
func TestProcessorRefused(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&stripe.Error{HTTPStatusCode: 400, Type: stripe.ErrorTypeInvalidRequest}, true},
		{&stripe.Error{HTTPStatusCode: 404, Type: stripe.ErrorTypeInvalidRequest}, true},
		{&stripe.Error{HTTPStatusCode: 400, Type: stripe.ErrorTypeIdempotency}, false},
		{&stripe.Error{HTTPStatusCode: 401}, false},
		{&stripe.Error{HTTPStatusCode: 403}, false},
		{&stripe.Error{HTTPStatusCode: 409}, false},
		{&stripe.Error{HTTPStatusCode: 429}, false},
		{&stripe.Error{HTTPStatusCode: 500, Type: stripe.ErrorTypeAPI}, false},
		{io.ErrUnexpectedEOF, false},
	} {
		if _, got := processorRefused(c.err); got != c.want {
			t.Errorf("processorRefused(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// voidTransfer, before a move by hand of a payout sent through the
// processor: a transfer not yet claimed is voided (nothing is sent, then or
// later: createTransfer answers transfer_voided, getFacts shows none, a
// payout event of it is not ours); one claimed is answered as it is, and
// stays. A call again answers the same.
func TestVoidTransfer(t *testing.T) {
	h := newHarness(t, testSecret)
	p := h.withProcessor(t)
	ctx := context.Background()
	a := newTransferArgs()
	for range 2 {
		v, err := h.svc.voidTransfer(ctx, &contract.VoidTransferArgs{PayoutID: a.PayoutID})
		if err != nil || !v.Voided || v.Transfer != nil || v.PayoutID != a.PayoutID {
			t.Fatalf("void: %+v %v", v, err)
		}
	}
	_, err := h.svc.createTransfer(ctx, a)
	if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "transfer_voided" {
		t.Fatalf("createTransfer after the void: %v", err)
	}
	if n := len(p.calls()); n != 0 {
		t.Fatalf("the processor was asked %d times", n)
	}
	if f := h.facts(t, a.PayoutID); len(f) != 0 {
		t.Fatalf("facts of a voided transfer: %+v", f)
	}
	stray := eventJSON(t, "evt_stray", "payout.paid", payoutObject("po_stray", 9800, "paid", a.PayoutID))
	wantText(t, h.signed(t, stray), 200, "Unknown transfer: ignored")

	// Claimed first: the void answers it, and it is sent as ever.
	b := newTransferArgs()
	tr, err := h.svc.createTransfer(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := h.svc.voidTransfer(ctx, &contract.VoidTransferArgs{PayoutID: b.PayoutID})
	if err != nil || v.Voided || v.Transfer == nil || *v.Transfer != *tr || v.Transfer.Status != contract.TransferPending {
		t.Fatalf("void of a claimed transfer: %+v %v", v, err)
	}
	if again, err := h.svc.createTransfer(ctx, b); err != nil || again.TransferID != tr.TransferID {
		t.Fatalf("createTransfer after a refused void: %+v %v", again, err)
	}
	// Over the contract, from payouts only.
	raw, _ := json.Marshal(contract.VoidTransferArgs{PayoutID: b.PayoutID})
	reg := h.svc.built().Registry
	res, err := reg.Invoke(ctx, ops.Mutation, contract.OpVoidTransfer, raw, true)
	if err != nil {
		t.Fatal(err)
	}
	var got contract.TransferVoid
	if bs, _ := json.Marshal(res); json.Unmarshal(bs, &got) != nil || got.Voided || got.Transfer == nil || got.Transfer.TransferID != tr.TransferID {
		t.Fatalf("over the contract: %+v", got)
	}
	if _, err := reg.Invoke(ctx, ops.Mutation, contract.OpVoidTransfer, raw, false); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("an outsider's call: %v", err)
	}
}
