package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/auth"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payments/domain"
	"marketplace/services/payments/storage"
)

// testOwner owns testStore in the fake catalog.
const testOwner = "user-owner-of-test-store"

// disputeObj is a processor Dispute as its webhooks carry it.
func disputeObj(id, intentID string, amount int64, status string, created, dueBy int64) map[string]any {
	return map[string]any{"id": id, "object": "dispute", "amount": amount, "currency": "aed", "charge": "ch_" + intentID, "payment_intent": intentID,
		"reason": "fraudulent", "status": status, "created": created, "evidence_details": map[string]any{"due_by": dueBy}}
}

func (h *harness) disputeDoc(t *testing.T, id string) *domain.Dispute {
	t.Helper()
	d, err := h.svc.disputes.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDisputeOpenedThenClosed: charge.dispute.created records the dispute
// open with the intent's order and store and publishes dispute_opened;
// closed lost closes it and publishes dispute_closed; redeliveries, copies,
// a late opening and a contradicting close change nothing.
func TestDisputeOpenedThenClosed(t *testing.T) {
	h := newHarness(t, testSecret)
	orderID := h.paidOrder(t, "pi_d1")
	created, due := time.Now().Add(-time.Hour).Unix(), time.Now().Add(7*24*time.Hour).Unix()
	obj := disputeObj("dp_1", "pi_d1", 15750, "needs_response", created, due)
	opened := eventJSON(t, "evt_dc1", typeDisputeCreated, obj)
	wantText(t, h.signed(t, opened), 200, textDisputeOpened)
	wantText(t, h.signed(t, opened), 200, textEventAlreadyProcessed)
	wantText(t, h.signed(t, eventJSON(t, "evt_dc1b", typeDisputeCreated, obj)), 200, textNothingNew)
	want := domain.Dispute{ID: "dp_1", PaymentIntentID: "pi_d1", ChargeID: "ch_pi_d1", OrderID: orderID, StoreID: testStore, Amount: 15750, Currency: "aed",
		Reason: "fraudulent", Status: domain.DisputeOpen, DueBy: due * 1000, OpenedAt: created * 1000}
	if d := h.disputeDoc(t, "dp_1"); d == nil || *d != want {
		t.Fatalf("dispute %+v, want %+v", d, want)
	}

	lost := disputeObj("dp_1", "pi_d1", 15750, "lost", created, due)
	closed := eventJSON(t, "evt_dl1", typeDisputeClosed, lost)
	wantText(t, h.signed(t, closed), 200, textDisputeClosed+"lost")
	wantText(t, h.signed(t, closed), 200, textEventAlreadyProcessed)
	wantText(t, h.signed(t, eventJSON(t, "evt_dw1", typeDisputeClosed, disputeObj("dp_1", "pi_d1", 15750, "won", created, due))), 200, textNothingNew)
	wantText(t, h.signed(t, eventJSON(t, "evt_dc1c", typeDisputeCreated, obj)), 200, textNothingNew)
	d := h.disputeDoc(t, "dp_1")
	if d.Status != domain.DisputeLost || d.ClosedAt == 0 {
		t.Fatalf("closed %+v", d)
	}

	p := h.published(t)
	if len(p) != 2 || p[0].typ != contract.EventDisputeOpened || p[1].typ != contract.EventDisputeClosed || p[0].key != "pi_d1" || p[1].key != "pi_d1" {
		t.Fatalf("published %+v", p)
	}
	if got := decodeAs[contract.Dispute](t, p[0].data); got != want.Contract() {
		t.Fatalf("opened %+v, want %+v", got, want.Contract())
	}
	if got := decodeAs[contract.Dispute](t, p[1].data); got != d.Contract() {
		t.Fatalf("closed %+v, want %+v", got, d.Contract())
	}
}

// TestDisputeClosedBeforeItsOpening: a close heard first records the
// dispute closed and publishes the opening then the close, in that order;
// the opening delivered afterwards is late. A won close releases nothing
// else; an inquiry closed without a chargeback is not acted on.
func TestDisputeClosedBeforeItsOpening(t *testing.T) {
	h := newHarness(t, testSecret)
	h.paidOrder(t, "pi_d2")
	now := time.Now().Unix()
	wantText(t, h.signed(t, eventJSON(t, "evt_w1", typeDisputeClosed, disputeObj("dp_2", "pi_d2", 5000, "won", now, now+86400))), 200, textDisputeClosed+"won")
	wantText(t, h.signed(t, eventJSON(t, "evt_o1", typeDisputeCreated, disputeObj("dp_2", "pi_d2", 5000, "needs_response", now, now+86400))), 200, textNothingNew)
	wantText(t, h.signed(t, eventJSON(t, "evt_x1", typeDisputeClosed, disputeObj("dp_3", "pi_d2", 5000, "warning_closed", now, 0))), 200, textDisputeStatus+"warning_closed")
	if d := h.disputeDoc(t, "dp_2"); d.Status != domain.DisputeWon || d.OpenedAt != now*1000 {
		t.Fatalf("dispute %+v", d)
	}
	if d := h.disputeDoc(t, "dp_3"); d != nil {
		t.Fatalf("an inquiry recorded %+v", d)
	}
	p := h.published(t)
	if len(p) != 2 || p[0].typ != contract.EventDisputeOpened || p[1].typ != contract.EventDisputeClosed {
		t.Fatalf("published %+v", p)
	}
	if o, c := decodeAs[contract.Dispute](t, p[0].data), decodeAs[contract.Dispute](t, p[1].data); o.Status != domain.DisputeOpen || o.ClosedAt != 0 ||
		c.Status != domain.DisputeWon || c.ClosedAt == 0 {
		t.Fatalf("opened %+v closed %+v", o, c)
	}
}

// TestDisputeOfAnUnknownOrBadIntent: a dispute of an intent whose order is
// not recorded yet is 500 (the processor retries; nothing recorded); a
// dispute object that is not one is 400; an order paid before stores were
// recorded with it takes its store from the intent at the processor.
func TestDisputeOfAnUnknownOrBadIntent(t *testing.T) {
	h := newHarness(t, testSecret)
	now := time.Now().Unix()
	r := h.signed(t, eventJSON(t, "evt_u1", typeDisputeCreated, disputeObj("dp_u", "pi_unknown", 100, "needs_response", now, now)))
	wantJSON(t, r, 500, "error", "eventId")
	for name, obj := range map[string]map[string]any{
		"no id":       disputeObj("", "pi_x", 100, "needs_response", now, now),
		"zero amount": disputeObj("dp_x", "pi_x", 0, "needs_response", now, now),
		"no intent":   disputeObj("dp_x", "", 100, "needs_response", now, now),
		"no created": func() map[string]any {
			o := disputeObj("dp_x", "pi_x", 100, "needs_response", now, now)
			delete(o, "created")
			return o
		}(),
		"bad due_by": func() map[string]any {
			o := disputeObj("dp_x", "pi_x", 100, "needs_response", now, now)
			o["evidence_details"] = map[string]any{"due_by": "soon"}
			return o
		}(),
		"bad currency": func() map[string]any {
			o := disputeObj("dp_x", "pi_x", 100, "needs_response", now, now)
			o["currency"] = "dirham"
			return o
		}(),
	} {
		if r := h.signed(t, eventJSON(t, "evt_bad", typeDisputeCreated, obj)); r.status != 400 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
	if n, _ := h.db.Collection(storage.DisputesCollection).CountDocuments(context.Background(), bson.M{}); n != 0 {
		t.Fatalf("%d disputes recorded", n)
	}

	// An order recorded without its store (before this version).
	orderID := ids.New("orders")
	if _, err := h.svc.processed.Record(context.Background(), domain.ProcessedEvent{ID: "evt_old", Type: typeSucceeded, PaymentIntentID: "pi_old",
		OrderID: orderID, ProcessedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r = h.signed(t, eventJSON(t, "evt_o2", typeDisputeCreated, disputeObj("dp_old", "pi_old", 100, "needs_response", now, now)))
	wantJSON(t, r, 503, "error", "retryAfter") // no processor configured to ask
	proc := startRefundsProcessor(t)
	h.useProcessor(proc.srv.URL)
	wantText(t, h.signed(t, eventJSON(t, "evt_o2", typeDisputeCreated, disputeObj("dp_old", "pi_old", 100, "needs_response", now, now))), 200, textDisputeOpened)
	if d := h.disputeDoc(t, "dp_old"); d.StoreID != testStore || d.OrderID != orderID {
		t.Fatalf("dispute %+v", d)
	}
	if reqs := proc.requests(); len(reqs) != 1 || reqs[0].method != "GET" || reqs[0].path != "/v1/payment_intents/pi_old" {
		t.Fatalf("processor requests %+v", reqs)
	}
}

// seedDisputes records disputes directly (the webhook's path is tested above).
func (h *harness) seedDisputes(t *testing.T, ds ...domain.Dispute) {
	t.Helper()
	for _, d := range ds {
		if err := h.svc.disputes.Save(context.Background(), nil, d); err != nil {
			t.Fatal(err)
		}
	}
}

// opsClient calls the harness's operations over HTTP as the gateway does,
// with a user's token.
type opsClient struct {
	app interface {
		Test(*http.Request, ...int) (*http.Response, error)
	}
	secret []byte
}

func (h *harness) opsClient(t *testing.T) *opsClient {
	t.Helper()
	secret := []byte("test-jwt-secret-of-at-least-32-bytes!")
	v, err := auth.NewHS256(secret, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	app := httpserver.New("payments", cfg, h.svc.env.Logger, nil)
	(&ops.Server{Registry: h.svc.built().Registry, Verifier: v}).Mount(app)
	return &opsClient{app: app, secret: secret}
}

// query calls path as sub with roles; it returns the status and the body.
func (c *opsClient) query(t *testing.T, sub string, roles []string, path string, args any) (int, []byte) {
	t.Helper()
	token, err := auth.Mint(c.secret, sub, roles, time.Hour, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(args)
	body, _ := json.Marshal(ops.Request{Path: path, Args: a})
	req := httptest.NewRequest(http.MethodPost, "/api/query", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.Bytes()
}

func disputeIDs(t *testing.T, body []byte) (ids []string, r page.Result[DisputeView]) {
	t.Helper()
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	for _, d := range r.Page {
		ids = append(ids, d.DisputeID)
	}
	return ids, r
}

// TestListDisputes: administrators list every store's disputes, open ones
// by deadline (soonest first), others newest first, paginated; a store's
// owner lists the store's, as does an administrator; another user is
// refused (PERMISSION_DENIED) and so is a non-admin on the admins' list.
func TestListDisputes(t *testing.T) {
	h := newHarness(t, testSecret)
	other := ids.New("stores")
	h.seedDisputes(t,
		domain.Dispute{ID: "dp_a", StoreID: testStore, Status: domain.DisputeOpen, DueBy: 3000, OpenedAt: 100, Amount: 1000, Currency: "aed"},
		domain.Dispute{ID: "dp_b", StoreID: other, Status: domain.DisputeOpen, DueBy: 1000, OpenedAt: 300, Amount: 2000, Currency: "aed"},
		domain.Dispute{ID: "dp_c", StoreID: testStore, Status: domain.DisputeOpen, DueBy: 2000, OpenedAt: 200, Amount: 1250, Currency: "aed"},
		domain.Dispute{ID: "dp_d", StoreID: testStore, Status: domain.DisputeLost, DueBy: 500, OpenedAt: 400, ClosedAt: 900, Amount: 500, Currency: "aed"},
	)
	c := h.opsClient(t)
	admin := []string{auth.RoleAdmin}
	pageOf := func(n int) map[string]any { return map[string]any{"numItems": n} }

	status, body := c.query(t, "admin-1", admin, "admins.disputes.listDisputes", map[string]any{"status": "open", "paginationOpts": pageOf(2)})
	got, r := disputeIDs(t, body)
	if status != 200 || !slices.Equal(got, []string{"dp_b", "dp_c"}) || r.IsDone {
		t.Fatalf("open, first page: %d %s", status, body)
	}
	_, body = c.query(t, "admin-1", admin, "admins.disputes.listDisputes", map[string]any{"status": "open", "paginationOpts": map[string]any{"numItems": 2, "cursor": r.ContinueCursor}})
	if got, r := disputeIDs(t, body); !slices.Equal(got, []string{"dp_a"}) || !r.IsDone {
		t.Fatalf("open, second page: %s", body)
	}
	_, body = c.query(t, "admin-1", admin, "admins.disputes.listDisputes", map[string]any{"paginationOpts": pageOf(10)})
	if got, r := disputeIDs(t, body); !slices.Equal(got, []string{"dp_d", "dp_b", "dp_c", "dp_a"}) || r.Page[0].Amount != 5 || r.Page[0].ClosedAt == nil || *r.Page[0].ClosedAt != 900 || r.Page[1].ClosedAt != nil {
		t.Fatalf("all, newest first: %s", body)
	}
	if status, body := c.query(t, "admin-1", admin, "admins.disputes.listDisputes", map[string]any{"status": "pending", "paginationOpts": pageOf(10)}); status != 400 {
		t.Fatalf("a bad status: %d %s", status, body)
	}
	if status, body := c.query(t, testOwner, nil, "admins.disputes.listDisputes", map[string]any{"paginationOpts": pageOf(10)}); status != 403 {
		t.Fatalf("a store owner on the admins' list: %d %s", status, body)
	}

	storeArgs := map[string]any{"storeId": testStore, "status": "open", "paginationOpts": pageOf(10)}
	for _, who := range []struct {
		sub   string
		roles []string
	}{{testOwner, nil}, {"admin-1", admin}} {
		status, body := c.query(t, who.sub, who.roles, "stores.disputes.listDisputes", storeArgs)
		if got, _ := disputeIDs(t, body); status != 200 || !slices.Equal(got, []string{"dp_c", "dp_a"}) {
			t.Fatalf("%s: %d %s", who.sub, status, body)
		}
	}
	if status, body := c.query(t, "someone-else", nil, "stores.disputes.listDisputes", storeArgs); status != 403 || !bytes.Contains(body, []byte("PERMISSION_DENIED")) {
		t.Fatalf("another user: %d %s", status, body)
	}
}

// TestMoneyFacts: payments.money.getFacts answers the disputes asked for
// that exist, as recorded, and no transfer for a payout without one; only
// payouts may call it.
func TestMoneyFacts(t *testing.T) {
	h := newHarness(t, testSecret)
	d := domain.Dispute{ID: "dp_f", PaymentIntentID: "pi_f", OrderID: ids.New("orders"), StoreID: testStore, Status: domain.DisputeLost, Amount: 700,
		Currency: "aed", DueBy: 5, OpenedAt: 1, ClosedAt: 9, Reason: "fraudulent"}
	h.seedDisputes(t, d)
	facts, err := h.svc.getMoneyFacts(context.Background(), &contract.MoneyFactsArgs{DisputeIDs: []string{"dp_f", "dp_none"}, PayoutIDs: []string{ids.New("payouts")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Disputes) != 1 || facts.Disputes["dp_f"] != d.Contract() || facts.Transfers == nil || len(facts.Transfers) != 0 {
		t.Fatalf("facts %+v", facts)
	}
	callers, ok := h.svc.built().Registry.CallersOf(contract.OpGetMoneyFacts)
	if !ok || !slices.Equal(callers, []string{"payouts"}) {
		t.Fatalf("callers %v %v", callers, ok)
	}
}

// TestListDisputesFilteredAndSorted: the disputes lists' date range on
// openedAt (inclusive), sort (due, newest, oldest) and the admin's store
// filter, the server's, paged; due without status open, due with a range,
// a reversed range, one over 366 days and an unknown sort refused.
func TestListDisputesFilteredAndSorted(t *testing.T) {
	h := newHarness(t, testSecret)
	other := ids.New("stores")
	h.seedDisputes(t,
		domain.Dispute{ID: "dp_a", StoreID: testStore, Status: domain.DisputeOpen, DueBy: 3000, OpenedAt: 100, Amount: 1000, Currency: "aed"},
		domain.Dispute{ID: "dp_b", StoreID: other, Status: domain.DisputeOpen, DueBy: 1000, OpenedAt: 300, Amount: 2000, Currency: "aed"},
		domain.Dispute{ID: "dp_c", StoreID: testStore, Status: domain.DisputeOpen, DueBy: 2000, OpenedAt: 200, Amount: 1250, Currency: "aed"},
		domain.Dispute{ID: "dp_d", StoreID: testStore, Status: domain.DisputeLost, DueBy: 500, OpenedAt: 400, ClosedAt: 900, Amount: 500, Currency: "aed"},
		domain.Dispute{ID: "dp_e", StoreID: other, Status: domain.DisputeWon, DueBy: 600, OpenedAt: 50, ClosedAt: 700, Amount: 300, Currency: "aed"},
	)
	c := h.opsClient(t)
	admin := []string{auth.RoleAdmin}
	// all walks the list two at a time.
	all := func(sub string, roles []string, op string, args map[string]any) []string {
		t.Helper()
		var out []string
		var cursor any
		for {
			a := map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}}
			for k, v := range args {
				a[k] = v
			}
			status, body := c.query(t, sub, roles, op, a)
			if status != 200 {
				t.Fatalf("%s %v: %d %s", op, args, status, body)
			}
			got, r := disputeIDs(t, body)
			out = append(out, got...)
			if r.IsDone {
				return out
			}
			cursor = r.ContinueCursor
		}
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"oldest", map[string]any{"sort": "oldest"}, []string{"dp_e", "dp_a", "dp_c", "dp_b", "dp_d"}},
		{"open, newest", map[string]any{"status": "open", "sort": "newest"}, []string{"dp_b", "dp_c", "dp_a"}},
		{"open, due", map[string]any{"status": "open", "sort": "due"}, []string{"dp_b", "dp_c", "dp_a"}},
		{"range (inclusive)", map[string]any{"from": 200, "to": 400}, []string{"dp_d", "dp_b", "dp_c"}},
		{"range, oldest", map[string]any{"from": 150, "sort": "oldest"}, []string{"dp_c", "dp_b", "dp_d"}},
		{"open in a range (newest by default)", map[string]any{"status": "open", "to": 250}, []string{"dp_c", "dp_a"}},
		{"one store", map[string]any{"storeId": other}, []string{"dp_b", "dp_e"}},
		{"one store, open, due", map[string]any{"storeId": testStore, "status": "open", "sort": "due"}, []string{"dp_c", "dp_a"}},
		{"nothing in range", map[string]any{"from": 401}, nil},
		{"closed (won or lost)", map[string]any{"status": "closed"}, []string{"dp_d", "dp_e"}},
		{"won", map[string]any{"status": "won"}, []string{"dp_e"}},
		{"closed, oldest, in a range", map[string]any{"status": "closed", "sort": "oldest", "from": 100, "to": 400}, []string{"dp_d"}},
	} {
		if got := all("admin-1", admin, "admins.disputes.listDisputes", tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("admins, %s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := all(testOwner, nil, "stores.disputes.listDisputes", map[string]any{"storeId": testStore, "from": 150, "to": 400, "sort": "oldest"}); !slices.Equal(got, []string{"dp_c", "dp_d"}) {
		t.Errorf("the store's, range, oldest: %v", got)
	}
	for _, tc := range []struct {
		name   string
		args   map[string]any
		reason string
	}{
		{"due without status open", map[string]any{"sort": "due"}, "due_needs_open"},
		{"due of the lost ones", map[string]any{"status": "lost", "sort": "due"}, "due_needs_open"},
		{"due of the closed ones", map[string]any{"status": "closed", "sort": "due"}, "due_needs_open"},
		{"due with a range", map[string]any{"status": "open", "sort": "due", "from": 1}, "sort_with_range"},
		{"over 366 days", map[string]any{"from": 0, "to": 366*24*3600*1000 + 1}, "range_too_large"},
		{"reversed", map[string]any{"from": 5, "to": 4}, ""},
		{"unknown sort", map[string]any{"sort": "amount"}, ""},
		{"negative from", map[string]any{"from": -1}, ""},
	} {
		for _, op := range []string{"admins.disputes.listDisputes", "stores.disputes.listDisputes"} {
			a := map[string]any{"storeId": testStore, "paginationOpts": map[string]any{"numItems": 2}}
			for k, v := range tc.args {
				a[k] = v
			}
			status, body := c.query(t, "admin-1", admin, op, a)
			if status != 400 || !bytes.Contains(body, []byte("INVALID_ARGUMENT")) || (tc.reason != "" && !bytes.Contains(body, []byte(`"reason":"`+tc.reason+`"`))) {
				t.Errorf("%s, %s: %d %s", op, tc.name, status, body)
			}
		}
	}
	if status, body := c.query(t, "someone-else", nil, "stores.disputes.listDisputes", map[string]any{"storeId": testStore, "from": 1, "paginationOpts": map[string]any{"numItems": 2}}); status != 403 {
		t.Errorf("another user: %d %s", status, body)
	}
}
