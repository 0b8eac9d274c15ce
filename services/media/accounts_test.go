package media

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/libs/auth"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/services/media/domain"
)

func accountEvent(t *testing.T, id, typ string, data any) events.Envelope {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return events.Envelope{ID: id, Type: typ, Source: "test", Time: time.Now(), Data: raw}
}

// TestNewAccountsUploadLess: an account without an order or a review has
// the smaller daily quota (429 RATE_LIMITED with Retry-After, details.reason
// new_account); order.created or review.created naming it lifts it to the
// full quota for good; events naming someone else, or of other types,
// change nothing; an administrator has the full quota from the start.
func TestNewAccountsUploadLess(t *testing.T) {
	const size = 1 << 20
	h := newHarness(t, func(s *Settings) { s.DailyUploadBytes, s.NewAccountDailyUploadBytes = 4*size, 2*size })
	refused := func(who string) {
		t.Helper()
		resp, body := h.upload(t, who, "image/gif", gifOfSize(size))
		var e struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != 429 || e.Error.Code != "RATE_LIMITED" || e.Error.Details["reason"] != "new_account" ||
			e.Error.Details["dailyUploadBytes"] != float64(2*size) || ra < 1 || !strings.Contains(e.Error.Message, "order or a review") {
			t.Fatalf("%s over the new accounts' quota: %d Retry-After=%q %s", who, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	for _, who := range []string{"buyer", "reviewer", "bystander"} {
		h.mustUpload(t, who, gifOfSize(size))
		h.mustUpload(t, who, gifOfSize(size))
		refused(who)
	}

	apply := func(env events.Envelope) {
		t.Helper()
		if err := h.db.Tx(context.Background(), func(ctx context.Context) error { return h.svc.onAccountEvent(ctx, env) }); err != nil {
			t.Fatal(err)
		}
	}
	apply(accountEvent(t, "evt_1", customers.EventOrderCreated, customers.OrderEvent{OrderID: "ord_1", CustomerUserID: "buyer"}))
	apply(accountEvent(t, "evt_2", reviews.EventCreated, reviews.Review{ReviewID: "rev_1", CustomerUserID: "reviewer"}))
	// Neither names the bystander; a status change is not an order being made.
	apply(accountEvent(t, "evt_3", customers.EventOrderStatusChanged, customers.OrderEvent{OrderID: "ord_2", CustomerUserID: "bystander"}))
	apply(accountEvent(t, "evt_4", customers.EventOrderCreated, customers.OrderEvent{OrderID: "ord_3"}))
	// A second order of the buyer keeps the first record.
	apply(accountEvent(t, "evt_5", customers.EventOrderCreated, customers.OrderEvent{OrderID: "ord_4", CustomerUserID: "buyer"}))

	for _, who := range []string{"buyer", "reviewer"} {
		h.mustUpload(t, who, gifOfSize(size))
		h.mustUpload(t, who, gifOfSize(size))
		resp, body := h.upload(t, who, "image/gif", gifOfSize(size))
		if resp.StatusCode != 429 || strings.Contains(string(body), "new_account") || !strings.Contains(string(body), strconv.Itoa(4*size)) {
			t.Fatalf("%s over the full quota: %d %s", who, resp.StatusCode, body)
		}
	}
	refused("bystander")
	var rec domain.EstablishedAccount
	if err := h.db.Collection("establishedAccounts").FindOne(context.Background(), map[string]any{"_id": "buyer"}).Decode(&rec); err != nil ||
		rec.By != "order" || rec.EventID != "evt_1" {
		t.Fatalf("the buyer's record: %+v %v", rec, err)
	}
	h.start(t) // the record is kept: a restart does not make the account new again
	resp, _ := h.upload(t, "reviewer", "image/gif", gifOfSize(size))
	if resp.StatusCode != 429 {
		t.Fatalf("the reviewer after a restart: %d", resp.StatusCode)
	}

	// An administrator: the full quota without an order or a review.
	tok, _ := auth.Mint(secret, "admin-1", []string{auth.RoleAdmin}, time.Minute, auth.Options{})
	for i := range 4 {
		resp, body := h.upload(t, "", "image/gif", gifOfSize(size), "Authorization", "Bearer "+tok)
		if resp.StatusCode != 200 {
			t.Fatalf("the administrator's upload %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
}
