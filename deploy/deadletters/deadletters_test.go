package deadletters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"marketplace/deploy/modules"
	"marketplace/libs/events"
	"marketplace/libs/store"
)

const group, source = "notifications", "orders"

// A group's dead letters, listed and replayed as the group's service's
// Kafka user, on a broker holding every user to the module list's ACLs.
// The list is the parked records, oldest first per partition, a record
// marked Replayed when a replay of it follows (in any partition), ID and
// Type empty for a message that is no event; replay records are not listed.
// A replay copies the parked record into the group's own topic without its
// error, marked with the record it copies; it takes only what pick accepts,
// never a message that is no event, never what was replayed. The group's
// consumer handles the replays, and one that fails again is listed as a new
// dead letter, which can be replayed in turn. A group that never ran has
// nothing parked; a group that cannot name its topic is refused.
func TestListAndReplay(t *testing.T) {
	users := modules.KafkaUsers(modules.All)
	i := slices.IndexFunc(users, func(u events.ACLUser) bool { return u.Username == group })
	b, err := events.StartBrokerWith(events.BrokerOptions{Topics: modules.Topics(modules.All),
		Users: []events.Credentials{events.NewUser("admin")}, ACLUsers: users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close) // after the consumer's end
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	brokers := b.BrokersAs(users[i].Credentials)
	dlq := events.DeadLetterTopic(group)

	for _, g := range []string{group, "notifications.never"} {
		if d, err := List(ctx, brokers, g); err != nil || d != nil {
			t.Fatalf("dead letters of %s, which never ran: %+v %v, want none", g, d, err)
		}
		if d, err := Replay(ctx, brokers, g, nil); err != nil || d != nil {
			t.Fatalf("replay of %s, which never ran: %+v %v, want nothing", g, d, err)
		}
	}
	for _, g := range []string{"notifications/x", strings.Repeat("n", 250)} {
		want := fmt.Sprintf("cannot name its dead-letter topic %q", events.DeadLetterTopic(g))
		if _, err := List(ctx, brokers, g); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("dead letters of %q: %v, want %s", g, err, want)
		}
		if _, err := Replay(ctx, brokers, g, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("replay of %q: %v, want %s", g, err, want)
		}
	}

	// What the group parked, in partitions 1 and 0 (written in that order),
	// and a replay, in partition 2, of the first record of partition 0.
	if err := events.EnsureTopics(ctx, brokers, -1, -1, dlq); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Second)
	parked := func(id, reason string, sourceOffset int) kafka.Message {
		v := []byte("not an event")
		if id != "" {
			v, _ = json.Marshal(events.Envelope{ID: id, Type: "order.created", Source: "customers", Time: time.Now().UTC(), Subject: "ord_" + id, Data: json.RawMessage(`{}`)})
		}
		return kafka.Message{Key: []byte("ord_" + id), Value: v, Headers: []kafka.Header{{Key: events.SourceTopicHeader, Value: []byte(source)},
			{Key: events.SourcePartitionHeader, Value: []byte("0")}, {Key: events.SourceOffsetHeader, Value: fmt.Appendf(nil, "%d", sourceOffset)},
			{Key: events.GroupHeader, Value: []byte(group)}, {Key: events.ErrorHeader, Value: []byte(reason)}}}
	}
	write(t, ctx, brokers, dlq, 1, parked("evt_1", "no such order", 1), parked("", "not an envelope", 2))
	e2 := parked("evt_2", "timeout", 3)
	e2.Headers = append(slices.DeleteFunc(slices.Clone(e2.Headers), func(h kafka.Header) bool { return h.Key == events.ErrorHeader }),
		kafka.Header{Key: events.ReplayOfHeader, Value: []byte("0/0")})
	write(t, ctx, brokers, dlq, 2, e2)
	write(t, ctx, brokers, dlq, 0, parked("evt_2", "timeout", 3), parked("evt_3", "no such store", 4))

	type row struct {
		ref, id, typ, err string
		replayed          bool
	}
	rows := func(d []DeadLetter) []row {
		var out []row
		for _, d := range d {
			if d.Topic != source || d.ParkedAt.Before(start) || d.ParkedAt.After(time.Now()) {
				t.Errorf("dead letter %+v, want one parked from %s since %s", d, source, start)
			}
			out = append(out, row{d.Ref(), d.ID, d.Type, d.Error, d.Replayed})
		}
		return out
	}
	list := func() []row {
		t.Helper()
		d, err := List(ctx, brokers, group)
		if err != nil {
			t.Fatal(err)
		}
		return rows(d)
	}
	check := func(what string, got, want []row) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	want := []row{{"0/0", "evt_2", "order.created", "timeout", true}, {"0/1", "evt_3", "order.created", "no such store", false},
		{"1/0", "evt_1", "order.created", "no such order", false}, {"1/1", "", "", "not an envelope", false}}
	check("dead letters", list(), want)

	// Replaying what pick accepts copies it into the group's topic, without
	// its error, marked with the record it copies and when.
	done, err := Replay(ctx, brokers, group, func(d DeadLetter) bool { return d.ID == "evt_3" || d.ID == "" })
	if err != nil {
		t.Fatal(err)
	}
	check("replayed of evt_3 and the non-event", rows(done), []row{{"0/1", "evt_3", "order.created", "no such store", true}})
	want[1].replayed = true
	check("dead letters after the replay of evt_3", list(), want)
	var replays []kafka.Message
	for _, m := range read(t, ctx, brokers, dlq) {
		if h := events.HeadersFromKafka(m.Headers); h[events.ReplayOfHeader] == "0/1" {
			replays = append(replays, m)
		}
	}
	if len(replays) != 1 {
		t.Fatalf("%d replays of 0/1, want 1", len(replays))
	}
	h := events.HeadersFromKafka(replays[0].Headers)
	at, err := time.Parse(time.RFC3339Nano, h[events.ReplayedAtHeader])
	orig := events.HeadersFromKafka(parked("evt_3", "no such store", 4).Headers)
	delete(orig, events.ErrorHeader)
	delete(h, events.ReplayedAtHeader)
	orig[events.ReplayOfHeader] = "0/1"
	if err != nil || at.Before(start) || at.After(time.Now()) || string(replays[0].Key) != "ord_evt_3" || !strings.Contains(string(replays[0].Value), `"evt_3"`) ||
		!maps.Equal(h, orig) {
		t.Fatalf("replay %s %s %v (at %v), want evt_3's record without its error, marked 0/1 and when", replays[0].Key, replays[0].Value, h, err)
	}

	// All: what is left, once.
	if done, err = Replay(ctx, brokers, group, nil); err != nil {
		t.Fatal(err)
	}
	check("replayed of all", rows(done), []row{{"1/0", "evt_1", "order.created", "no such order", true}})
	if done, err = Replay(ctx, brokers, group, nil); err != nil || done != nil {
		t.Fatalf("replayed again: %+v %v, want nothing", done, err)
	}
	want[2].replayed = true
	check("dead letters after the replay of all", list(), want)

	// The group's consumer handles the replays; evt_1 fails again and is
	// parked again: a new dead letter, not replayed, which a replay takes.
	seen := runConsumer(t, ctx, brokers, "evt_1")
	var known, again []DeadLetter
	waitFor(t, 20*time.Second, func() bool {
		d, err := List(ctx, brokers, group)
		if err != nil {
			t.Fatal(err)
		}
		known, again = nil, nil
		for _, d := range d {
			if slices.ContainsFunc(want, func(w row) bool { return w.ref == d.Ref() }) {
				known = append(known, d)
			} else {
				again = append(again, d)
			}
		}
		return len(again) > 0
	})
	if d := again[0]; len(again) != 1 || d.ID != "evt_1" || d.Topic != source || !strings.Contains(d.Error, "still no such order") || d.Replayed {
		t.Fatalf("parked again: %+v, want evt_1 from %s with its new error, not replayed", again, source)
	}
	check("dead letters the consumer left", rows(known), want)
	waitFor(t, 10*time.Second, func() bool { return seen("evt_2") > 0 && seen("evt_3") > 0 })
	if done, err = Replay(ctx, brokers, group, nil); err != nil || len(done) != 1 || done[0].Ref() != again[0].Ref() {
		t.Fatalf("replay after the consumer: %+v %v, want evt_1's new dead letter %s", done, err, again[0].Ref())
	}
}

// write appends msgs to partition of topic, as brokers' user.
func write(t *testing.T, ctx context.Context, brokers events.Brokers, topic string, partition int, msgs ...kafka.Message) {
	t.Helper()
	conn, err := brokers.Dialer("test").DialLeader(ctx, "tcp", brokers.Addrs[0], topic, partition)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.WriteMessages(msgs...); err != nil {
		t.Fatal(err)
	}
}

// read is every record of topic, as brokers' user.
func read(t *testing.T, ctx context.Context, brokers events.Brokers, topic string) []kafka.Message {
	t.Helper()
	var out []kafka.Message
	for p := range 3 {
		conn, err := brokers.Dialer("test").DialLeader(ctx, "tcp", brokers.Addrs[0], topic, p)
		if err != nil {
			t.Fatal(err)
		}
		first, last, err := conn.ReadOffsets()
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := readPartition(ctx, brokers, topic, p, first, last)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgs...)
	}
	return out
}

// runConsumer runs group's consumer of the source topic, as brokers' user,
// until the test ends; its handler fails on the event failing. seen counts
// the handler's runs of an event (a batch with a failure runs again).
func runConsumer(t *testing.T, ctx context.Context, brokers events.Brokers, failing string) (seen func(id string) int) {
	db, err := store.Open(ctx, store.Options{Name: "x", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, events.ConsumerIndexes()...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	handled := map[string]int{}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- events.RunConsumer(ctx, events.ConsumerConfig{Brokers: brokers, GroupID: group, Topics: []string{source}, DB: db,
			Handles: events.Versions{"order.created": {1}}, MaxAttempts: 1, Logger: slog.New(slog.DiscardHandler),
			SessionTimeout: time.Second, RebalanceTimeout: time.Second, HeartbeatInterval: 100 * time.Millisecond,
			Handler: func(_ context.Context, e events.Envelope) error {
				if e.ID == failing {
					return errors.New("still no such order")
				}
				mu.Lock()
				defer mu.Unlock()
				handled[e.ID]++
				return nil
			}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer: %v", err)
		}
		db.Close(context.Background())
	})
	return func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return handled[id]
	}
}

func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(timeout); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

// A group that never ran has nothing parked on a broker that creates no
// topic on demand (a cluster with auto.create.topics.enable=false): its
// dead-letter topic is unknown there. (The embedded broker, as Kafka's
// default, creates the topic a listing asks for: empty.)
func TestNothingParkedWhereTheTopicIsUnknown(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	brokers := events.Brokers{Addrs: c.ListenAddrs()}
	if d, err := List(ctx, brokers, group); err != nil || d != nil {
		t.Fatalf("dead letters: %+v %v, want none", d, err)
	}
	if d, err := Replay(ctx, brokers, group, nil); err != nil || d != nil {
		t.Fatalf("replay: %+v %v, want nothing", d, err)
	}
}
