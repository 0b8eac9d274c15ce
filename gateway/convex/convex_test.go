package convex

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
)

func TestFunctionPaths(t *testing.T) {
	ok := map[string]string{
		"catalog/locations:listCities":    "catalog.locations.listCities",
		"catalog/locations.js:listCities": "catalog.locations.listCities",
		"catalog/locations":               "catalog.locations.default",
		"catalog/locations.js":            "catalog.locations.default",
		"catalog.locations.listCities":    "catalog.locations.listCities",
		"admins/platformAdmin:setTier_2":  "admins.platformAdmin.setTier_2",
		"a/b/c:d":                         "a.b.c.d",
	}
	for in, want := range ok {
		got, err := functionPath(in)
		if err != nil || got != want {
			t.Errorf("functionPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "catalog", "catalog.locations", "a/b:", ":x", "a//b:c", "a/b:c d", "a/b.c:d",
		"../x:y", "a/b:c:d", "a/b:1c", "a/$b:c", strings.Repeat("a", 600) + "/b:c"} {
		if got, err := functionPath(in); err == nil || apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("functionPath(%q) = %q, %v; want INVALID_ARGUMENT", in, got, err)
		}
	}
	for dotted, want := range map[string]string{"catalog.locations.listCities": "catalog/locations:listCities", "a.b.c.d": "a/b/c:d"} {
		if got := convexName(dotted); got != want {
			t.Errorf("convexName(%q) = %q, want %q", dotted, got, want)
		}
	}
}

func TestDecodeArgs(t *testing.T) {
	ok := map[string]string{
		``:                                    `{}`,
		`null`:                                `{}`,
		`[]`:                                  `{}`,
		`{}`:                                  `{}`,
		`[{"b":1,"a":"x"}]`:                   `{"a":"x","b":1}`,
		`{"n":1.50,"s":"<&>"}`:                `{"n":1.50,"s":"<&>"}`,
		`[{"n":{"$integer":"AQAAAAAAAAA="}}]`: `{"n":1}`,
		`{"n":{"$integer":"//////////8="}}`:   `{"n":-1}`,
		// 2^53+1: exact, where a float64 would round it.
		`{"n":{"$integer":"AQAAAAAAIAA="}}`:                      `{"n":9007199254740993}`,
		`{"z":{"$float":"AAAAAAAAAIA="}}`:                        `{"z":-0}`,
		`{"b":{"$bytes":"AQID"}}`:                                `{"b":"AQID"}`,
		`{"deep":[{"k":[{"$integer":"AgAAAAAAAAA="}]}]}`:         `{"deep":[{"k":[2]}]}`,
		`{"paginationOpts":{"numItems":5,"cursor":null,"id":3}}`: `{"paginationOpts":{"cursor":null,"id":3,"numItems":5}}`,
	}
	for in, want := range ok {
		got, err := decodeArgs(json.RawMessage(in))
		if err != nil || string(got) != want {
			t.Errorf("decodeArgs(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	nan := encodeFloat(math.NaN())
	inf := encodeFloat(math.Inf(-1))
	for _, in := range []string{`[{},{}]`, `"x"`, `[1]`, `5`, `{"a":1}{}`, `{bad`,
		`{"$set":[]}`, `{"a":{"$map":[]}}`, `{"$foo":1,"b":2}`, `{"a":{"$integer":"AQ=="}}`, `{"a":{"$integer":5}}`,
		`{"a":{"$float":"` + nan + `"}}`, `{"a":{"$float":"` + inf + `"}}`, `{"a":{"$bytes":"%%"}}`, `{"a":[{"$commitTs":null}]}`,
		// An encoded value is not an arguments object.
		`{"$integer":"AQAAAAAAAAA="}`, `[{"$bytes":"AQID"}]`, `{"$float":"AAAAAAAAAIA="}`} {
		if got, err := decodeArgs(json.RawMessage(in)); err == nil || apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("decodeArgs(%s) = %s, %v; want INVALID_ARGUMENT", in, got, err)
		}
	}
}

func encodeFloat(f float64) string {
	return encodeTS(math.Float64bits(f))
}

func TestTimestamps(t *testing.T) {
	if got := encodeTS(1); got != "AQAAAAAAAAA=" {
		t.Fatalf("encodeTS(1) = %s", got) // little-endian, as Convex's Long.fromBytesLE reads it
	}
	for _, v := range []uint64{0, 1, 1 << 40, math.MaxUint64, uint64(time.Now().UnixNano())} {
		if got, err := decodeTS(encodeTS(v)); err != nil || got != v {
			t.Fatalf("round trip %d: %d %v", v, got, err)
		}
	}
	if _, err := decodeTS("AQ=="); err == nil {
		t.Fatal("a short timestamp decoded")
	}
	var c tsClock
	before := uint64(time.Now().UnixNano())
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := uint64(0)
			for range 2000 {
				ts := c.next()
				if ts <= last {
					t.Errorf("not growing: %d after %d", ts, last)
				}
				last = ts
				mu.Lock()
				if seen[ts] {
					t.Errorf("handed out twice: %d", ts)
				}
				seen[ts] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first := c.next(); first < before {
		t.Fatalf("behind the wall clock: %d < %d", first, before)
	}
	// A clock that restarts reads the wall clock: later than anything handed out
	// before (the restart takes longer than the nanoseconds handed out ahead).
	var restarted tsClock
	if restarted.next() <= before {
		t.Fatal("a restarted clock went back")
	}
	// A client that saw a later time (another gateway) moves the clock; one far
	// in the future does not stop it.
	ahead := uint64(time.Now().Add(20 * time.Second).UnixNano())
	c.observe(ahead)
	if got := c.next(); got <= ahead {
		t.Fatalf("after observe(%d): %d", ahead, got)
	}
	far := uint64(time.Now().Add(24 * time.Hour).UnixNano())
	c.observe(far)
	if got := c.next(); got >= far {
		t.Fatal("a timestamp a day ahead moved the clock")
	}
}

func TestConnCounter(t *testing.T) {
	c := connCounter{n: map[string]int{}}
	if !c.acquire("a", 2) || !c.acquire("a", 2) || c.acquire("a", 2) {
		t.Fatal("the cap of 2 does not hold")
	}
	if !c.acquire("b", 2) {
		t.Fatal("callers share a cap")
	}
	c.release("a")
	if !c.acquire("a", 2) {
		t.Fatal("a released socket is not given back")
	}
	c.release("a")
	c.release("a")
	c.release("b")
	if len(c.n) != 0 {
		t.Fatalf("counts left: %v", c.n)
	}
}

// fakeSub records what a live query hands it.
type fakeSub struct {
	mu  sync.Mutex
	got map[uint32][]*queryResult
	tok string
}

func (f *fakeSub) deliver(s *querySub, r *queryResult) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got[s.id] = append(f.got[s.id], r)
}

func (f *fakeSub) token(*auth.Identity) string { return f.tok }

func (f *fakeSub) count(id uint32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got[id])
}

// A burst of changes while a run is in flight makes one more run, not one per
// change, and a run that returns the same value pushes nothing.
func TestLiveQueriesCoalesceAndSkipUnchanged(t *testing.T) {
	var runs atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	h := newLiveQueries(nil, 4)
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
		return outcome{Value: json.RawMessage(`"same"`)}
	}
	sub := &fakeSub{got: map[uint32][]*queryResult{}}
	s := &querySub{id: 7, conn: sub}
	h.subscribe(s, "svc", "a.b.c", []byte(`{}`), nil)
	<-started
	for range 50 {
		h.changed("svc")
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d runs for 50 changes during one run; want 2", n)
	}
	if n := sub.count(7); n != 1 {
		t.Fatalf("%d values pushed; want 1 (the second run returned the same value)", n)
	}
	// Another service's change runs nothing.
	h.changed("other")
	time.Sleep(50 * time.Millisecond)
	if n := runs.Load(); n != 2 {
		t.Fatalf("another service's change ran the query (%d runs)", n)
	}
	h.unsubscribe(s)
	if q, subs := h.stats(); q != 0 || subs != 0 {
		t.Fatalf("%d queries, %d subscriptions left", q, subs)
	}
}

// Subscribers that agree on path, arguments and identity share one run;
// another identity is another live query.
func TestLiveQueriesShareRuns(t *testing.T) {
	var runs atomic.Int32
	h := newLiveQueries(nil, 4)
	var n atomic.Int32
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		runs.Add(1)
		return outcome{Value: json.RawMessage(`{"n":` + string(rune('0'+n.Load())) + `}`)}
	}
	subs := make([]*fakeSub, 3)
	for i := range subs {
		subs[i] = &fakeSub{got: map[uint32][]*queryResult{}}
		h.subscribe(&querySub{id: 1, conn: subs[i]}, "svc", "a.b.c", []byte(`{"x":1}`), nil)
	}
	waitFor(t, func() bool { return subs[0].count(1) == 1 && subs[1].count(1) == 1 && subs[2].count(1) == 1 })
	if q, s := h.stats(); q != 1 || s != 3 {
		t.Fatalf("%d live queries, %d subscriptions; want 1, 3", q, s)
	}
	n.Store(1)
	before := runs.Load()
	h.changed("svc")
	waitFor(t, func() bool { return subs[0].count(1) == 2 && subs[1].count(1) == 2 && subs[2].count(1) == 2 })
	if got := runs.Load() - before; got != 1 {
		t.Fatalf("%d runs for 3 subscribers of one query; want 1", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("not within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// FuzzDecodeArgs: any args decode to a plain JSON object or fail with
// INVALID_ARGUMENT; never a panic, never another code.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{``, `null`, `[]`, `[{}]`, `{"a":{"$integer":"AQAAAAAAAAA="}}`, `{"a":{"$integer":"AQ=="}}`,
		`{"a":{"$float":"AAAAAAAA+H8="}}`, `{"a":{"$bytes":"AQID"}}`, `{"a":{"$bytes":"AQI"}}`, `[{"$x":1}]`, `{"a":[[[[{"$integer":"//////////8="}]]]]}`,
		`{"a":1e999}`, `{"\u0000":"\ud800"}`, `[{},{}]`, `{"$integer":"00000000000="}`, `{"a":{"$integer":"AQAAAAAAAAA=","b":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := decodeArgs(raw)
		if err != nil {
			if apperr.CodeOf(err) != apperr.InvalidArgument {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		// Numbers keep their text (1e999 included: the service's decoder judges them).
		if !json.Valid(out) || out[0] != '{' {
			t.Fatalf("%q decoded to %q, not a JSON object", raw, out)
		}
	})
}
