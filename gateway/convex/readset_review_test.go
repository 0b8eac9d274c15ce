package convex

// Review of issue 23: invalidations the gateway must not lose.

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

func liveEvent(t *testing.T, id, service string, w *liveset.Writes) kafka.Message {
	t.Helper()
	b, err := json.Marshal(events.Envelope{ID: id, Type: liveset.EventType, Source: service, Data: json.RawMessage(w.Encode())})
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Message{Value: b}
}

// The gateway learns a service's live topic from whichever replica answered
// its last GET /ops. During a rolling upgrade (or a rollback) an older
// replica, which declares no live topic, answers some refreshes: the live
// events the newer replicas publish meanwhile (writes by their consumers,
// background work, other gateways) must still re-run the live queries they
// touch; they must not be dropped because the last declaration lacked the
// topic, and the domain events are no longer there to stand in.
func TestReviewLiveEventsAreAppliedWhateverReplicaDeclaredLast(t *testing.T) {
	x := New(Config{}, nil, nil, slog.New(slog.DiscardHandler))
	c := countRuns(x.live, map[string]string{"storeA": `[{"c":"reviews","f":"storeId","v":["A"]}]`})
	newer := ops.Topics{Publishes: []string{"reviews.events"}, Live: liveset.TopicOf("reviews")}
	older := ops.Topics{Publishes: []string{"reviews.events"}}
	x.Declare("reviews", newer)
	x.live.subscribe(&querySub{id: 1, conn: schedulerConn{}}, "reviews", "storeA", []byte(`{}`), nil)
	want := map[string]int{"storeA": 1}
	c.waitRuns(t, want)

	tp := topicPartition{topic: liveset.TopicOf("reviews")}
	x.events.onEvent(context.Background(), tp, liveEvent(t, "evt_1", "reviews", reviewWrites("r1", "A")))
	want["storeA"]++
	c.waitRuns(t, want)

	x.Declare("reviews", older) // an older replica answered this refresh
	x.events.onEvent(context.Background(), tp, liveEvent(t, "evt_2", "reviews", reviewWrites("r2", "A")))
	want["storeA"]++
	c.waitRuns(t, want)
}

// An answer's writes mark their live events applied; the event, read later,
// is skipped (one run, not two).
func TestReviewAnEventIsSkippedOnlyAfterItsWritesWereApplied(t *testing.T) {
	x := New(Config{}, nil, nil, slog.New(slog.DiscardHandler))
	c := countRuns(x.live, map[string]string{"storeA": `[{"c":"reviews","f":"storeId","v":["A"]}]`})
	x.Declare("reviews", ops.Topics{Live: liveset.TopicOf("reviews")})
	x.live.subscribe(&querySub{id: 1, conn: schedulerConn{}}, "reviews", "storeA", []byte(`{}`), nil)
	want := map[string]int{"storeA": 1}
	c.waitRuns(t, want)

	w := reviewWrites("r1", "A")
	w.IDs = []string{"evt_1"}
	x.Invalidate("reviews", w.Encode()) // the answer: store A's query runs again
	want["storeA"]++
	c.waitRuns(t, want)
	tp := topicPartition{topic: liveset.TopicOf("reviews")}
	x.events.onEvent(context.Background(), tp, liveEvent(t, "evt_1", "reviews", reviewWrites("r1", "A"))) // skipped
	c.waitRuns(t, want)
}
