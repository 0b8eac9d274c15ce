package payments

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/contracts/customers"
	"marketplace/services/payments/domain"
	"marketplace/services/payments/storage"
)

func failedEvent(t *testing.T, eventID, intentID string) []byte {
	obj := intent(intentID, 15750, validMetadata())
	obj["last_payment_error"] = map[string]any{"message": "Your card was declined."}
	return eventJSON(t, eventID, typeFailed, obj)
}

func canceledEvent(t *testing.T, eventID, intentID string) []byte {
	return eventJSON(t, eventID, typeCanceled, intent(intentID, 15750, validMetadata()))
}

// intentDoc is the intent's state document, or the zero value.
func (h *harness) intentDoc(t *testing.T, id string) domain.IntentState {
	t.Helper()
	var st domain.IntentState
	err := h.db.Collection(storage.IntentsCollection).FindOne(context.Background(), bson.M{"_id": id}).Decode(&st)
	if err != nil && !strings.Contains(err.Error(), "no documents") {
		t.Fatal(err)
	}
	return st
}

// A failure or cancellation delivered after the intent succeeded (the
// processor delivers out of order) is acknowledged and changes nothing: no
// notice, no record, no lookup.
func TestStaleEventsOfASucceededIntent(t *testing.T) {
	h := newHarness(t, testSecret)
	r := h.signed(t, succeededEvent(t, "evt_s", "pi_s"))
	if r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
		t.Fatalf("succeeded = %d %q", r.status, r.body)
	}
	if st := h.intentDoc(t, "pi_s"); st.Status != domain.IntentSucceeded || st.EventID != "evt_s" {
		t.Fatalf("intent state = %+v", st)
	}
	calls := h.customers.count()
	for _, body := range [][]byte{
		failedEvent(t, "evt_s_failed", "pi_s"),
		canceledEvent(t, "evt_s_canceled", "pi_s"),
		failedEvent(t, "evt_s_failed", "pi_s"), // its redelivery too
	} {
		wantText(t, h.signed(t, body), 200, textIntentSettled)
	}
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 0 {
		t.Fatalf("%d events published for stale deliveries", n)
	}
	if rec := h.processed(t); len(rec) != 1 || rec[0].ID != "evt_s" {
		t.Fatalf("recorded = %+v", rec)
	}
	if st := h.intentDoc(t, "pi_s"); st.Status != domain.IntentSucceeded || st.Failures != 0 {
		t.Fatalf("intent state = %+v", st)
	}
	if h.customers.count() != calls {
		t.Fatalf("stale deliveries called the customers service %d times", h.customers.count()-calls)
	}
}

// An intent settled before the state documents existed is known by its
// recorded succeeded event.
func TestStaleFailureOfAnIntentSettledBefore(t *testing.T) {
	h := newHarness(t, testSecret)
	if _, err := h.db.Collection(storage.ProcessedCollection).InsertOne(context.Background(), domain.ProcessedEvent{
		ID: "evt_old", Type: typeSucceeded, PaymentIntentID: "pi_old", OrderID: "ord_x", ProcessedAt: time.Now(),
	}); err != nil {
		t.Fatal(err)
	}
	wantText(t, h.signed(t, failedEvent(t, "evt_old_failed", "pi_old")), 200, textIntentSettled)
	h.settleOutbox(t)
	if len(h.pub.Messages()) != 0 || len(h.processed(t)) != 1 {
		t.Fatalf("%d events published, %d recorded", len(h.pub.Messages()), len(h.processed(t)))
	}
}

// Failures while the intent is open each notify (each was a declined card);
// the success after them makes the order; a failure delivered after that,
// however old, is stale.
func TestFailuresThenSuccess(t *testing.T) {
	h := newHarness(t, testSecret)
	wantText(t, h.signed(t, failedEvent(t, "evt_f1", "pi_fs")), 200, textFailureRecorded)
	wantText(t, h.signed(t, failedEvent(t, "evt_f2", "pi_fs")), 200, textFailureRecorded)
	h.waitPublished(t, 2)
	if st := h.intentDoc(t, "pi_fs"); st.Status != "" || st.Failures != 2 {
		t.Fatalf("intent state = %+v", st)
	}
	r := h.signed(t, succeededEvent(t, "evt_fs", "pi_fs"))
	if r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
		t.Fatalf("succeeded after failures = %d %q", r.status, r.body)
	}
	wantText(t, h.signed(t, failedEvent(t, "evt_f3", "pi_fs")), 200, textIntentSettled)
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 2 {
		t.Fatalf("published %d events, want the 2 failures before the success", n)
	}
}

// A canceled intent is settled: a failure after it is stale, a second
// cancellation too. A success after it (the processor never sends one) still
// makes the order: the customer was charged.
func TestCanceledIntent(t *testing.T) {
	h := newHarness(t, testSecret)
	wantText(t, h.signed(t, canceledEvent(t, "evt_c", "pi_c")), 200, textCancelRecorded)
	wantText(t, h.signed(t, failedEvent(t, "evt_c_failed", "pi_c")), 200, textIntentSettled)
	wantText(t, h.signed(t, canceledEvent(t, "evt_c_again", "pi_c")), 200, textIntentSettled)
	if rec := h.processed(t); len(rec) != 1 || rec[0].ID != "evt_c" {
		t.Fatalf("recorded = %+v", rec)
	}
	if st := h.intentDoc(t, "pi_c"); st.Status != domain.IntentCanceled || st.EventID != "evt_c" {
		t.Fatalf("intent state = %+v", st)
	}
	r := h.signed(t, succeededEvent(t, "evt_c_paid", "pi_c"))
	if r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
		t.Fatalf("succeeded after cancel = %d %q", r.status, r.body)
	}
	if st := h.intentDoc(t, "pi_c"); st.Status != domain.IntentSucceeded {
		t.Fatalf("intent state = %+v", st)
	}
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 0 {
		t.Fatalf("published %d events", n)
	}
}

// The race: a failure's transaction has read the intent as open when the
// success settles it. Its write of the intent's document then conflicts, it
// runs again, sees the intent settled and publishes nothing.
func TestFailureRacingTheSuccess(t *testing.T) {
	h := newHarness(t, testSecret)
	// Another intent's failure first: the collections exist, so that only a
	// write to the same document can make the transaction run again.
	wantText(t, h.signed(t, failedEvent(t, "evt_warm", "pi_warm")), 200, textFailureRecorded)
	h.waitPublished(t, 1)
	read, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h.svc.failureRead = func() {
		once.Do(func() { close(read); <-release }) // the first attempt only
	}
	failure := make(chan reply, 1)
	go func() { failure <- h.signed(t, failedEvent(t, "evt_race_failed", "pi_race2")) }()
	<-read
	r := h.signed(t, succeededEvent(t, "evt_race_paid", "pi_race2"))
	if r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
		t.Fatalf("succeeded = %d %q", r.status, r.body)
	}
	close(release)
	wantText(t, <-failure, 200, textIntentSettled)
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 1 {
		t.Fatalf("a failure notice was published for a paid intent (%d events, want the other intent's 1)", n)
	}
	if st := h.intentDoc(t, "pi_race2"); st.Status != domain.IntentSucceeded || st.Failures != 0 {
		t.Fatalf("intent state = %+v", st)
	}
}

// Failures and successes of many intents delivered at once: every intent gets
// its one order, every delivery is answered 200, and a failure notice exists
// only for a failure answered "recorded" (one that committed while its
// intent was open).
func TestFailuresAndSuccessesAtOnce(t *testing.T) {
	h := newHarness(t, testSecret)
	const n = 12
	var wg sync.WaitGroup
	failures := make([]reply, n)
	successes := make([]reply, n)
	for i := range n {
		id := "pi_many_" + string(rune('a'+i))
		wg.Go(func() { failures[i] = h.signed(t, failedEvent(t, "evt_mf_"+id, id)) })
		wg.Go(func() { successes[i] = h.signed(t, succeededEvent(t, "evt_ms_"+id, id)) })
	}
	wg.Wait()
	recorded := 0
	for i := range n {
		if r := successes[i]; r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
			t.Errorf("success %d = %d %q", i, r.status, r.body)
		}
		switch r := failures[i]; {
		case r.status == 200 && r.body == textFailureRecorded:
			recorded++
		case r.status == 200 && r.body == textIntentSettled:
		default:
			t.Errorf("failure %d = %d %q", i, r.status, r.body)
		}
	}
	h.settleOutbox(t)
	if got := len(h.pub.Messages()); got != recorded {
		t.Fatalf("published %d failure notices, %d failures answered recorded", got, recorded)
	}
	if got := len(h.customers.callsTo(customers.OpCreateOrder)); got != n {
		t.Fatalf("%d orders asked for, want %d", got, n)
	}
}
