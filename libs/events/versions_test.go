package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func TestDataSchemaNamesTypeAndMajorVersion(t *testing.T) {
	if got := DataSchemaOf("order.created", 2); got != "urn:marketplace:event:order.created:v2" {
		t.Fatalf("DataSchemaOf = %q", got)
	}
	for _, tc := range []struct {
		schema string
		want   int // 0: an error
	}{
		{"", 1}, // written before versions
		{"urn:marketplace:event:order.created:v1", 1},
		{"urn:marketplace:event:order.created:v12", 12},
		{"urn:marketplace:event:order.updated:v1", 0}, // another type
		{"urn:marketplace:event:order.created:v0", 0},
		{"urn:marketplace:event:order.created:v01", 0},
		{"urn:marketplace:event:order.created:v-1", 0},
		{"urn:marketplace:event:order.created:v", 0},
		{"urn:marketplace:event:order.created:2", 0},
		{"https://example.com/order.created/v1", 0},
	} {
		v, err := Envelope{Type: "order.created", DataSchema: tc.schema}.Version()
		if tc.want == 0 && err == nil || tc.want != 0 && (err != nil || v != tc.want) {
			t.Errorf("%q: version %d, err %v; want %d", tc.schema, v, err, tc.want)
		}
	}
}

func TestCopiesAttribute(t *testing.T) {
	d1, d2 := strings.Repeat("a", 64), strings.Repeat("0", 64)
	cs, err := parseCopies("v1:" + d1 + ",v3:" + d2)
	if err != nil || len(cs) != 2 || cs[0] != (copyRef{1, d1}) || cs[1] != (copyRef{3, d2}) {
		t.Fatalf("parse: %v, %v", cs, err)
	}
	if got := formatCopies(cs); got != "v1:"+d1+",v3:"+d2 {
		t.Errorf("format: %q", got)
	}
	for _, bad := range []string{"v1", "1:" + d1, "v0:" + d1, "v1:" + d1[1:], "v1:" + strings.ToUpper(d1), "v1:" + d1 + ",v1:" + d2, "v1:" + d1 + ",", " v1:" + d1} {
		if _, err := parseCopies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// An envelope whose copies do not parse is not an envelope.
	if _, err := Decode([]byte(`{"id":"evt_1","type":"t","copies":"v2:zz","data":{}}`)); err == nil {
		t.Error("Decode accepted a bad copies attribute")
	}
}

// A consumer decodes data leniently: a field its payload struct does not
// have (a compatible producer's addition) is ignored; what is not an object,
// or a field of the wrong type, is refused.
func TestDecodeDataIgnoresAddedFields(t *testing.T) {
	var d struct {
		OrderID string `json:"orderId"`
		Total   int64  `json:"totalFils"`
	}
	env := Envelope{ID: "evt_1", Type: "order.created",
		Data: json.RawMessage(`{"orderId":"ord_1","totalFils":500,"nextVersion":"x","added":{"nested":[1,2]}}`)}
	if err := DecodeData(env, &d); err != nil || d.OrderID != "ord_1" || d.Total != 500 {
		t.Fatalf("added fields: %+v, %v", d, err)
	}
	for _, bad := range []string{``, `null`, `[1]`, `"x"`, `{"orderId":5}`} {
		env.Data = json.RawMessage(bad)
		if err := DecodeData(env, &d); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Every event an outbox writes names its version; a type the producer has
// not declared is refused; a type published in two versions takes its data
// in both and writes two copies of one event, in one insert, each naming the
// other by version and digest.
func TestOutboxWritesVersions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, ctx)
	o := NewOutbox(db, "orders-svc", Versions{"order.created": {1}, "order.changed": {2, 1}})
	tx := func(fn func(ctx context.Context) error) error { return db.Tx(ctx, fn) }

	var one Envelope
	if err := tx(func(ctx context.Context) (err error) {
		one, err = o.Add(ctx, topic, "order.created", "ord_1", map[string]int{"n": 1})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if one.DataSchema != "urn:marketplace:event:order.created:v1" || one.Copies != "" {
		t.Errorf("one version: dataschema %q, copies %q", one.DataSchema, one.Copies)
	}
	for _, tc := range []struct {
		typ  string
		data any
		want string
	}{
		{"order.undeclared", map[string]int{}, "no version"},
		{"order.changed", map[string]int{}, "must be an events.ByVersion"},
		{"order.changed", ByVersion{2: map[string]int{}}, "data in 1 versions"},
		{"order.changed", ByVersion{2: 1, 3: 2}, "no data of version 1"},
		{"order.created", ByVersion{2: 1}, "no data of version 1"},
	} {
		err := tx(func(ctx context.Context) error { _, err := o.Add(ctx, topic, tc.typ, "ord_1", tc.data); return err })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.typ, tc.data, err, tc.want)
		}
	}

	var cur Envelope
	if err := tx(func(ctx context.Context) (err error) {
		cur, err = o.Add(ctx, topic, "order.changed", "ord_2", ByVersion{1: map[string]int{"total": 5}, 2: map[string]string{"total": "5.00"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var docs []outboxDoc
	cur2, err := db.Collection(outboxCollection).Find(ctx, bson.D{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cur2.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	envs := map[int]Envelope{}
	for _, d := range docs {
		env, err := Decode([]byte(d.Envelope))
		if err != nil {
			t.Fatal(err)
		}
		if env.Type != "order.changed" {
			continue
		}
		v, err := env.Version()
		if err != nil {
			t.Fatal(err)
		}
		envs[v] = env
		if want := map[int]string{2: cur.ID, 1: cur.ID + "/v1"}[v]; d.ID != want || d.Key != "ord_2" {
			t.Errorf("v%d: outbox id %q key %q, want %q", v, d.ID, d.Key, want)
		}
	}
	v1, v2 := envs[1], envs[2]
	if len(envs) != 2 || v1.ID != cur.ID || v2.ID != cur.ID || cur.DataSchema != DataSchemaOf("order.changed", 2) {
		t.Fatalf("copies %+v, returned %+v", envs, cur)
	}
	if string(v1.Data) != string(withNextPayload([]byte(`{"total":5}`))) || string(v2.Data) != string(withNextPayload([]byte(`{"total":"5.00"}`))) {
		t.Errorf("data: v1 %s, v2 %s", v1.Data, v2.Data)
	}
	if v1.Copies != "v2:"+contentDigest(v2) || v2.Copies != "v1:"+contentDigest(v1) {
		t.Errorf("copies: v1 names %q, v2 names %q", v1.Copies, v2.Copies)
	}
	// Version 1 adds nothing to a digest: the same as before versions.
	noSchema := v1
	noSchema.DataSchema, noSchema.Copies = "", ""
	if contentDigest(noSchema) != contentDigest(v1) || contentDigest(v2) == contentDigest(Envelope{Type: v2.Type, Source: v2.Source, Subject: v2.Subject, Data: v2.Data}) {
		t.Error("the digest does not cover the version as it should")
	}
}

// syncBuffer is a log destination read while the consumer writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines are the JSON log lines whose msg contains substr.
func (s *syncBuffer) lines(t *testing.T, substr string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for l := range strings.Lines(s.b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if msg, _ := m["msg"].(string); strings.Contains(msg, substr) {
			out = append(out, m)
		}
	}
	return out
}

// A version the consumer does not read (a newer one, or a dataschema it
// cannot parse) is parked on the dead-letter topic at once, without running
// the handler, with one log line naming the event's type, version and id and
// the versions the consumer reads, and counted; the consumer goes on with the
// next event. An envelope without dataschema is version 1. An event of a type
// the consumer does not declare is acknowledged, neither handled nor parked.
func TestUnknownVersionIsParked(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(*ConsumerConfig)
	}{
		{"one at a time", func(c *ConsumerConfig) { c.BatchSize = 1 }},
		{"batch", batchOpts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reader := sdkmetric.NewManualReader()
			otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
			h := newHarness(t, "")
			logs := &syncBuffer{}
			rec := newRecorder()
			h.startConsumer("g1", h.db, rec.handle, 0, tc.opts, func(c *ConsumerConfig) {
				c.Logger = slog.New(slog.NewJSONHandler(logs, nil))
				c.Handles = Versions{"order.created": {1}, "order.status_changed": {2}, "order.last": {1}}
			})
			newer := Envelope{ID: "evt_newer", Type: "order.created", Source: "customers", Time: time.Now(), Subject: "ord_1",
				DataSchema: DataSchemaOf("order.created", 3), Data: json.RawMessage(`{"orderId":"ord_1"}`)}
			unreadable := newer
			unreadable.ID, unreadable.DataSchema = "evt_unreadable", "urn:marketplace:event:order.created:version-two"
			legacy := Envelope{ID: "evt_legacy", Type: "order.created", Source: "customers", Time: time.Now(), Subject: "ord_1",
				Data: json.RawMessage(`{"orderId":"ord_1"}`)}
			// No dataschema is version 1: parked by a consumer that reads only 2.
			legacyStatus := legacy
			legacyStatus.ID, legacyStatus.Type = "evt_legacy_status", "order.status_changed"
			undeclared := Envelope{ID: "evt_undeclared", Type: "order.cancelled", Source: "customers", Time: time.Now(), Subject: "ord_1",
				DataSchema: DataSchemaOf("order.cancelled", 7), Data: json.RawMessage(`{}`)}
			last := Envelope{ID: "evt_last", Type: "order.last", Source: "test", Time: time.Now(), Subject: "ord_1", Data: json.RawMessage(`{}`)}
			if err := h.pub.Publish(h.ctx, envMsg(t, newer), envMsg(t, unreadable), envMsg(t, legacy), envMsg(t, legacyStatus), envMsg(t, undeclared), envMsg(t, last)); err != nil {
				t.Fatal(err)
			}
			rec.waitSeen(t, 8*time.Second, legacy.ID, last.ID)
			time.Sleep(100 * time.Millisecond)
			for _, id := range []string{newer.ID, unreadable.ID, legacyStatus.ID, undeclared.ID} {
				if n := rec.callsOf(id); n != 0 {
					t.Errorf("%s: handler ran %d times", id, n)
				}
			}
			if n := rec.callsOf(legacy.ID); n != 1 {
				t.Errorf("the envelope without dataschema was handled %d times, want 1", n)
			}

			parked := readTopic(t, h.broker.Addrs(), DeadLetterTopic("g1"), 3)
			wantParked := map[string]string{newer.ID: "version 3", unreadable.ID: "version-two", legacyStatus.ID: "version 1 of order.status_changed"}
			for _, m := range parked {
				env, err := Decode(m.Value)
				if err != nil {
					t.Fatal(err)
				}
				if e := HeadersFromKafka(m.Headers)[ErrorHeader]; !strings.Contains(e, "unknown version") || !strings.Contains(e, wantParked[env.ID]) {
					t.Errorf("%s parked with error %q", env.ID, e)
				}
				delete(wantParked, env.ID)
			}
			if len(wantParked) > 0 {
				t.Errorf("not parked: %v", wantParked)
			}

			lines := logs.lines(t, "version this consumer does not read")
			byID := map[string]map[string]any{}
			for _, l := range lines {
				byID[l["id"].(string)] = l
			}
			if len(lines) != 3 || len(byID) != 3 {
				t.Fatalf("log lines: %v", lines)
			}
			for id, want := range map[string][2]string{
				newer.ID:        {"3", "1"},
				unreadable.ID:   {unreadable.DataSchema, "1"},
				legacyStatus.ID: {"1", "2"},
			} {
				l := byID[id]
				if l["level"] != "ERROR" || l["version"] != want[0] || l["reads"] != want[1] || l["type"] == nil || l["type"] == "" {
					t.Errorf("%s: log line %v, want version %s, reads %s", id, l, want[0], want[1])
				}
			}
			waitFor(t, 2*time.Second, func() bool {
				got := collectInts(t, reader)
				return got["marketplace.events.unknown_version"][labels("group", "g1", "type", "order.created")] == 2 &&
					got["marketplace.events.unknown_version"][labels("group", "g1", "type", "order.status_changed")] == 1 &&
					got["marketplace.events.handled"][labels("group", "g1", "type", "order.created", "version", "1")] == 1 &&
					got["marketplace.events.dead_lettered"][labels("group", "g1", "topic", topic)] == 3
			})
		})
	}
}

// twoVersions publishes, through an outbox and relay, events of order.changed
// in versions 2 and 1, as a producer does during a deprecation window.
func (h *harness) twoVersions(n int) []string {
	h.t.Helper()
	o := NewOutbox(h.db, "orders-svc", Versions{"order.changed": {2, 1}, "order.last": {1}})
	var ids []string
	for i := range n {
		err := h.db.Tx(h.ctx, func(ctx context.Context) error {
			env, err := o.Add(ctx, topic, "order.changed", fmt.Sprintf("ord_%d", i), ByVersion{
				1: map[string]int{"totalFils": 100 * i},
				2: map[string]any{"total": map[string]any{"amount": i, "currency": "AED"}},
			})
			ids = append(ids, env.ID)
			return err
		})
		if err != nil {
			h.t.Fatal(err)
		}
	}
	return ids
}

// versionsSeen is, per event id, the versions a recorder's handler read.
func versionsSeen(t *testing.T, rec *recorder) map[string][]int {
	t.Helper()
	out := map[string][]int{}
	for _, e := range rec.snapshot() {
		v, err := e.Version()
		if err != nil {
			t.Fatal(err)
		}
		out[e.ID] = append(out[e.ID], v)
	}
	return out
}

// An event published in two versions is handled once by each consumer: in
// the highest version it reads; the other copy is acknowledged, not parked,
// even by a consumer that does not know its version.
func TestTwoVersionsHandledOnceByEachConsumer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(*ConsumerConfig)
	}{
		{"one at a time", func(c *ConsumerConfig) { c.BatchSize = 1 }},
		{"batch", batchOpts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "")
			groups := map[string]struct {
				reads []int
				want  int
			}{"reads-1": {[]int{1}, 1}, "reads-2": {[]int{2}, 2}, "reads-1-2": {[]int{1, 2}, 2}, "reads-2-3": {[]int{2, 3}, 2}}
			recs := map[string]*recorder{}
			statuses := map[string]*ConsumerStatus{}
			for g, spec := range groups {
				recs[g], statuses[g] = newRecorder(), NewConsumerStatus(0)
				h.startConsumer(g, h.db, recs[g].handle, 0, tc.opts, func(c *ConsumerConfig) {
					c.Handles = Versions{"order.changed": spec.reads, "order.last": {1}}
					c.Status = statuses[g]
				})
			}
			ids := h.twoVersions(5)
			h.startRelay(NewRelay(h.db, h.pub, h.logger))
			lastEnv := Envelope{ID: "evt_last", Type: "order.last", Source: "test", Time: time.Now(), Subject: "ord_0", Data: json.RawMessage(`{}`)}
			if err := h.pub.Publish(h.ctx, envMsg(t, lastEnv)); err != nil {
				t.Fatal(err)
			}
			for g, spec := range groups {
				recs[g].waitSeen(t, 8*time.Second, append(ids, lastEnv.ID)...)
				time.Sleep(50 * time.Millisecond)
				seen := versionsSeen(t, recs[g])
				for _, id := range ids {
					if got := seen[id]; len(got) != 1 || got[0] != spec.want {
						t.Errorf("%s: event %s handled in versions %v, want once in %d", g, id, got, spec.want)
					}
				}
				if _, dead := statuses[g].counts([]string{topic}); dead[topic] != 0 {
					t.Errorf("%s: %d dead-lettered", g, dead[topic])
				}
			}
		})
	}
}

// A consumer that moves from version 1 to version 2 while both are published
// handles each event once: the new copy of an event whose old copy it
// handled before the move, redelivered (an offset reset, a crash before the
// offset commit), is a duplicate, also when a forged event took the id
// first. A forged copy that names a real copy never makes the real one a
// duplicate.
func TestMovingToANewVersionHandlesEachEventOnce(t *testing.T) {
	h := newHarness(t, "")
	ids := h.twoVersions(4)
	h.startRelay(NewRelay(h.db, h.pub, h.logger))
	copies := map[string]map[int]Envelope{}
	for _, m := range readTopic(t, h.broker.Addrs(), topic, 8) { // both copies of the four events
		env, err := Decode(m.Value)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := env.Version()
		if copies[env.ID] == nil {
			copies[env.ID] = map[int]Envelope{}
		}
		copies[env.ID][v] = env
	}
	// Forged version 1 copies of the third and fourth events, each naming
	// the real version 2 copy.
	forge := func(id string) Envelope {
		f := copies[id][1]
		f.Data = json.RawMessage(`{"totalFils":999999}`)
		f.Copies = "v2:" + contentDigest(copies[id][2])
		return f
	}
	forged3, forged4 := forge(ids[2]), forge(ids[3])

	const replayTopic = "orders.replay"
	replay := func(envs ...Envelope) {
		t.Helper()
		msgs := make([]Message, len(envs))
		for i, e := range envs {
			msgs[i] = envMsg(t, e)
			msgs[i].Topic = replayTopic
		}
		if err := h.pub.Publish(h.ctx, msgs...); err != nil {
			t.Fatal(err)
		}
	}
	marker := func(id string) Envelope {
		return Envelope{ID: id, Type: "order.last", Source: "test", Time: time.Now(), Subject: "ord_0", Data: json.RawMessage(`{}`)}
	}
	reading := func(reads ...int) func(*ConsumerConfig) {
		return func(c *ConsumerConfig) {
			c.Topics = []string{replayTopic}
			c.Handles = Versions{"order.changed": reads, "order.last": {1}}
		}
	}

	data := func(rec *recorder, id string) []string {
		var out []string
		for _, e := range rec.snapshot() {
			if e.ID == id {
				out = append(out, string(e.Data))
			}
		}
		return out
	}
	// handledAll waits until rec has handled each id as often as counts says:
	// the topic has several partitions (keyed by subject), so a marker seen
	// says nothing of the events on the other partitions.
	handledAll := func(rec *recorder, counts map[string]int) {
		t.Helper()
		waitFor(t, 8*time.Second, func() bool {
			for id, n := range counts {
				if len(data(rec, id)) < n {
					return false
				}
			}
			return true
		})
	}

	// Before the move, the consumer reads version 1. The forged copies come
	// first; then both copies of the first, second and fourth events (the
	// fourth's real copy is another event than its forged one, and recorded
	// under its digest); the third's real copies only after the move.
	old := newRecorder()
	stopOld := h.startConsumer("g", h.db, old.handle, 0, reading(1))
	replay(forged3, forged4, marker("evt_m0"))
	old.waitSeen(t, 8*time.Second, "evt_m0")
	var before []Envelope
	for _, id := range []string{ids[0], ids[1], ids[3]} {
		before = append(before, copies[id][2], copies[id][1])
	}
	replay(append(before, marker("evt_m1"))...)
	old.waitSeen(t, 8*time.Second, "evt_m1")
	// Each event's copies share its partition and the version 2 copy comes
	// first: once the version 1 copy is handled, both were read.
	handledAll(old, map[string]int{ids[0]: 1, ids[1]: 1, ids[2]: 1, ids[3]: 2})
	stopOld()

	// After the move (same group, same records), every real copy is
	// delivered again, the third event's for the first time.
	moved := newRecorder()
	h.startConsumer("g", h.db, moved.handle, 0, reading(2))
	var all []Envelope
	for _, id := range ids {
		all = append(all, copies[id][2], copies[id][1])
	}
	replay(append(all, marker("evt_m2"))...)
	moved.waitSeen(t, 8*time.Second, "evt_m2")
	handledAll(moved, map[string]int{ids[2]: 1})
	time.Sleep(300 * time.Millisecond) // anything handled twice would show by now

	real := func(id string, v int) []string { return []string{string(copies[id][v].Data)} }
	for i, tc := range []struct {
		before, after []string
	}{
		{real(ids[0], 1), nil},
		{real(ids[1], 1), nil},
		// Only its forged copy came before the move: the real one is handled after it.
		{[]string{string(forged3.Data)}, real(ids[2], 2)},
		// Its forged copy and its real copy before the move; not again after it.
		{[]string{string(forged4.Data), string(copies[ids[3]][1].Data)}, nil},
	} {
		id := ids[i]
		if b, a := data(old, id), data(moved, id); !slices.Equal(b, tc.before) || !slices.Equal(a, tc.after) {
			t.Errorf("event %d: handled %v before the move and %v after, want %v and %v", i+1, b, a, tc.before, tc.after)
		}
	}
}
