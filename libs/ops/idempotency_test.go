package ops

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
)

func TestCheckIdempotencyKey(t *testing.T) {
	for _, ok := range []string{"a", "0f8fad5b-d9cb-469f-a165-70867728950e", " ~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}", strings.Repeat("k", 255)} {
		if err := CheckIdempotencyKey(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("k", 256), "a\tb", "a\nb", "\x00", "a\x7fb", "caf\u00e9", "\x1b[31m"} {
		err := CheckIdempotencyKey(bad)
		var e *apperr.Error
		if !asAppErr(err, &e) || e.Code != apperr.InvalidArgument || e.Details["header"] != HeaderIdempotencyKey ||
			!strings.Contains(e.Message, HeaderIdempotencyKey) {
			t.Errorf("%q: got %v, want INVALID_ARGUMENT naming the header", bad, err)
		}
	}
}

func asAppErr(err error, e **apperr.Error) bool {
	if err == nil {
		return false
	}
	*e = apperr.From(err)
	return true
}

// TestIdempotencyKeyOfReadsTheWireHeader: absent, present, present but empty,
// and given twice, as fasthttp parses them from the wire.
func TestIdempotencyKeyOfReadsTheWireHeader(t *testing.T) {
	parse := func(lines ...string) (string, bool, error) {
		t.Helper()
		raw := "POST /api/mutation HTTP/1.1\r\nHost: x\r\n" + strings.Join(lines, "") + "\r\n"
		var h fasthttp.RequestHeader
		if err := h.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
			t.Fatal(err)
		}
		return IdempotencyKeyOf(&h)
	}
	if k, present, err := parse(); present || err != nil || k != "" {
		t.Errorf("absent: %q %v %v", k, present, err)
	}
	if k, present, err := parse("idempotency-key: abc-1\r\n"); !present || err != nil || k != "abc-1" {
		t.Errorf("present (any case): %q %v %v", k, present, err)
	}
	if _, present, err := parse("Idempotency-Key: \r\n"); !present || apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("empty: %v %v", present, err)
	}
	if _, present, err := parse("Idempotency-Key: a\r\n", "Idempotency-Key: a\r\n"); !present || apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("twice: %v %v", present, err)
	}
	if _, _, err := parse("Idempotency-Key: " + strings.Repeat("x", 256) + "\r\n"); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("256 characters: %v", err)
	}
}

func TestCanonicalArgsAndHash(t *testing.T) {
	same := [][]string{
		{``, `null`, `{}`, ` { } `},
		{`{"a":1,"b":{"y":[1,2,{"q":true,"p":null}],"x":"s"}}`, "{ \"b\" : {\"x\":\"s\",\n\"y\":[1, 2, {\"p\":null,\"q\":true}]}, \"a\" : 1 }"},
		{`{"name":"caf\u00e9 <&>"}`, `{"name":"café <&>"}`},
		{`{"a":1,"a":2}`, `{"a":2}`}, // the decoder keeps the last duplicate too
	}
	for _, group := range same {
		want, err := ArgsHash([]byte(group[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range group[1:] {
			if got, err := ArgsHash([]byte(raw)); err != nil || got != want {
				t.Errorf("%s and %s hash differently (%v)", group[0], raw, err)
			}
		}
	}
	distinct := []string{`{}`, `{"a":1}`, `{"a":1.0}`, `{"a":"1"}`, `{"a":[1,2]}`, `{"a":[2,1]}`, `{"a":null}`, `{"A":1}`, `{"a":9007199254740993}`, `{"a":9007199254740992}`, `[]`}
	seen := map[string]string{}
	for _, raw := range distinct {
		h, err := ArgsHash([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("%s and %s hash alike", prev, raw)
		}
		seen[h] = raw
	}
	if c, _ := CanonicalArgs([]byte(`{"b":2, "a":{"d":1,"c":"<"}}`)); string(c) != `{"a":{"c":"<","d":1},"b":2}` {
		t.Errorf("canonical form %s", c)
	}
	if _, err := CanonicalArgs([]byte(`{"a":`)); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("broken JSON: %v", err)
	}
	if idempotencyID("sub:a", "b\x00c") == idempotencyID("sub:a\x00b", "c") {
		t.Error("caller and key are not separated in the record id")
	}
}

// subVerifier takes the token as the caller's subject.
type subVerifier struct{}

func (subVerifier) Verify(_ context.Context, tok string) (*auth.Identity, error) {
	return &auth.Identity{Sub: tok}, nil
}

type addArgs struct {
	N int `json:"n" op:"required,min=1,max=99"`
}

// idemWorld is a server with counting mutations over an in-memory database.
type idemWorld struct {
	t       *testing.T
	app     *fiber.App
	ids     *Idempotency
	db      *store.DB
	clock   atomic.Pointer[time.Time]
	total   atomic.Int64 // what "add" added
	fails   atomic.Int64 // runs of "exists"
	flaky   atomic.Int64 // runs of "flaky"
	publics atomic.Int64 // runs of "public"
	peers   *testPeers
	delay   atomic.Int64 // how long "add" takes, in nanoseconds
	hold    chan struct{}
	started chan struct{}
	// "write": how many more of its transactions report a conflict, its runs
	// that wrote, and what it does after writing (nil: answers).
	conflicts  atomic.Int64
	runs       atomic.Int64
	afterWrite atomic.Pointer[func(context.Context) error]
}

func newIdemWorld(t *testing.T) *idemWorld {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "idem", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	w := &idemWorld{t: t, db: db, hold: make(chan struct{}), started: make(chan struct{}, 100)}
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	w.clock.Store(&now)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	w.ids = NewIdempotency(db, logger)
	w.ids.now = func() time.Time { return *w.clock.Load() }
	if err := db.EnsureIndexes(ctx, storeIndexes(w.ids.Indexes())...); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry("t",
		NewMutation("t.idem.add", Authenticated, "", func(_ context.Context, a *addArgs) (map[string]any, error) {
			time.Sleep(time.Duration(w.delay.Load()))
			return map[string]any{"total": w.total.Add(int64(a.N)), "at": time.Now().UnixNano()}, nil
		}),
		NewMutation("t.idem.other", Authenticated, "", func(_ context.Context, a *addArgs) (int64, error) {
			return w.total.Add(int64(a.N)), nil
		}),
		NewMutation("t.idem.exists", Authenticated, "", func(context.Context, *NoArgs) (any, error) {
			return nil, apperr.New(apperr.AlreadyExists, "run %d: already there", w.fails.Add(1)).WithDetails(map[string]any{"field": "name"})
		}),
		NewMutation("t.idem.flaky", Authenticated, "", func(context.Context, *NoArgs) (int64, error) {
			if n := w.flaky.Add(1); n == 1 {
				return 0, apperr.New(apperr.Unavailable, "a dependency is down")
			} else if n == 2 {
				panic("a bug")
			} else {
				return n, nil
			}
		}),
		NewMutation("t.idem.slow", Authenticated, "", func(ctx context.Context, _ *NoArgs) (string, error) {
			w.started <- struct{}{}
			select {
			case <-w.hold:
				return "slow done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
		NewMutation("t.idem.public", Public, "", func(context.Context, *NoArgs) (int64, error) { return w.publics.Add(1), nil }),
		NewMutation("t.idem.internal", Internal, "", func(context.Context, *NoArgs) (int64, error) { return w.publics.Add(1), nil }, CalledBy("svc")),
		// "write" records its argument in the database in a transaction of its
		// own, then answers or fails as the test sets (w.afterWrite).
		NewMutation("t.idem.write", Authenticated, "", func(ctx context.Context, a *addArgs) (int64, error) {
			err := w.db.Tx(ctx, func(ctx context.Context) error {
				if w.conflicts.Add(-1) >= 0 {
					return store.ErrConflict // a compare-and-set that missed
				}
				_, err := w.db.Collection("effects").InsertOne(ctx, bson.M{"n": a.N})
				return err
			})
			if err != nil {
				return 0, err
			}
			w.runs.Add(1)
			if f := w.afterWrite.Load(); f != nil {
				return 0, (*f)(ctx)
			}
			return int64(a.N), nil
		}),
		NewMutation("t.idem.keyed", Authenticated, "", func(ctx context.Context, _ *NoArgs) (bool, error) { return IdempotencyKeyed(ctx), nil }),
		NewMutation("t.idem.keyedPublic", Public, "", func(ctx context.Context, _ *NoArgs) (bool, error) { return IdempotencyKeyed(ctx), nil }),
		NewQuery("t.idem.read", Authenticated, "", func(context.Context, *NoArgs) (int64, error) { return w.total.Load(), nil }),
	)
	w.app = httpserver.New("t", httpserver.Defaults(), logger, nil)
	w.peers = newTestPeers(t, "t", "svc", "undeclared")
	(&Server{Registry: reg, Verifier: subVerifier{}, Peers: w.peers.verifier, Callers: []string{"svc"}, Idempotency: w.ids}).Mount(w.app)
	return w
}

func (w *idemWorld) advance(d time.Duration) {
	next := w.clock.Load().Add(d)
	w.clock.Store(&next)
}

type idemResult struct {
	status   int
	body     string
	replayed bool
	code     string
	reason   any
}

// call posts to /api/<kind>; header "" sends no Idempotency-Key, and the
// extra headers come as name, value pairs.
func (w *idemWorld) call(kind, user, key, path, args string, extra ...string) idemResult {
	w.t.Helper()
	body := `{"path":"` + path + `"`
	if args != "" {
		body += `,"args":` + args
	}
	req := httptest.NewRequest(http.MethodPost, "/api/"+kind, strings.NewReader(body+"}"))
	req.Header.Set("Content-Type", "application/json")
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+user)
	}
	if key != "" {
		req.Header.Set(HeaderIdempotencyKey, key)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := w.app.Test(req, -1)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := idemResult{status: resp.StatusCode, body: string(b), replayed: resp.Header.Get(HeaderIdempotentReplayed) == "true"}
	if e, ok := apperr.Parse(resp.StatusCode, b); ok {
		r.code, r.reason = string(e.Code), e.Details["reason"]
	}
	return r
}

func (w *idemWorld) records() int64 {
	n, err := w.db.Collection(IdempotencyCollection).CountDocuments(context.Background(), bson.M{})
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// TestIdempotentReplay: the second call with a key answers the kept status and
// body byte for byte, marked Idempotent-Replayed, and runs nothing; an error
// outcome is kept the same way; without a key every call runs.
func TestIdempotentReplay(t *testing.T) {
	w := newIdemWorld(t)
	first := w.call("mutation", "u1", "k1", "t.idem.add", `{"n":2}`)
	if first.status != 200 || first.replayed {
		t.Fatalf("first call: %+v", first)
	}
	// Same arguments, other key order and spacing.
	again := w.call("mutation", "u1", "k1", "t.idem.add", ` { "n" : 2 } `)
	if again.status != 200 || again.body != first.body || !again.replayed {
		t.Fatalf("replay: %+v, first %+v", again, first)
	}
	if w.total.Load() != 2 {
		t.Fatalf("the replay ran the mutation: total %d", w.total.Load())
	}

	e1 := w.call("mutation", "u1", "k-err", "t.idem.exists", "")
	e2 := w.call("mutation", "u1", "k-err", "t.idem.exists", "null")
	if e1.status != 409 || e1.code != "ALREADY_EXISTS" || e1.replayed || e2.status != 409 || e2.body != e1.body || !e2.replayed {
		t.Fatalf("error outcome: %+v then %+v", e1, e2)
	}
	if w.fails.Load() != 1 {
		t.Fatalf("the error replay ran the mutation again: %d runs", w.fails.Load())
	}

	w.call("mutation", "u1", "", "t.idem.add", `{"n":1}`)
	w.call("mutation", "u1", "", "t.idem.add", `{"n":1}`)
	if w.total.Load() != 4 {
		t.Fatalf("calls without a key: total %d", w.total.Load())
	}
}

// TestIdempotencyKeyedTellsTheHandler: a handler learns whether its call runs
// under a key the server honours: not without one, nor for an anonymous
// caller (whose key is ignored).
func TestIdempotencyKeyedTellsTheHandler(t *testing.T) {
	w := newIdemWorld(t)
	for _, c := range []struct {
		user, key, path, want string
	}{{"u1", "k1", "t.idem.keyed", "true"}, {"u1", "", "t.idem.keyed", "false"}, {"", "k2", "t.idem.keyedPublic", "false"}} {
		if r := w.call("mutation", c.user, c.key, c.path, ""); r.status != 200 || strings.TrimSpace(r.body) != c.want {
			t.Errorf("%s by %q with key %q: %+v, want %s", c.path, c.user, c.key, r, c.want)
		}
	}
}

// TestIdempotencyKeyReused: the same key with other arguments or another
// operation is INVALID_ARGUMENT idempotency_key_reused and runs nothing; the
// same key of another caller is independent.
func TestIdempotencyKeyReused(t *testing.T) {
	w := newIdemWorld(t)
	first := w.call("mutation", "u1", "k", "t.idem.add", `{"n":1}`)
	for _, r := range []idemResult{
		w.call("mutation", "u1", "k", "t.idem.add", `{"n":3}`),
		w.call("mutation", "u1", "k", "t.idem.other", `{"n":1}`),
	} {
		if r.status != 400 || r.code != "INVALID_ARGUMENT" || r.reason != ReasonIdempotencyKeyReused || r.replayed {
			t.Errorf("reused key: %+v", r)
		}
	}
	if w.total.Load() != 1 {
		t.Fatalf("a refused call ran: total %d", w.total.Load())
	}
	other := w.call("mutation", "u2", "k", "t.idem.add", `{"n":1}`)
	if other.status != 200 || other.replayed || other.body == first.body || w.total.Load() != 2 {
		t.Fatalf("another caller's key: %+v total %d", other, w.total.Load())
	}
	if r := w.call("mutation", "u1", "k", "t.idem.add", `{"n":1}`); !r.replayed || r.body != first.body {
		t.Fatalf("first caller's replay after the other: %+v", r)
	}
}

// TestIdempotentTwinsRunOnce: twenty concurrent identical calls run the
// mutation once; every answer is that outcome or idempotency_key_in_use.
func TestIdempotentTwinsRunOnce(t *testing.T) {
	w := newIdemWorld(t)
	w.delay.Store(int64(50 * time.Millisecond)) // twins arrive while the first runs
	const n = 20
	results := make([]idemResult, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = w.call("mutation", "u1", "twenty", "t.idem.add", `{"n":1}`)
		}()
	}
	close(start)
	wg.Wait()
	if w.total.Load() != 1 {
		t.Fatalf("%d concurrent twins added %d", n, w.total.Load())
	}
	var body string
	fresh := 0
	for _, r := range results {
		switch {
		case r.status == 200:
			if body != "" && r.body != body {
				t.Errorf("two different outcomes: %s and %s", body, r.body)
			}
			body = r.body
			if !r.replayed {
				fresh++
			}
		case r.status == 409 && r.code == "FAILED_PRECONDITION" && r.reason == ReasonIdempotencyKeyInUse:
		default:
			t.Errorf("unexpected answer %+v", r)
		}
	}
	if fresh != 1 {
		t.Errorf("%d answers were not replays, want 1", fresh)
	}
	inUse := 0
	for _, r := range results {
		if r.status == 409 {
			inUse++
		}
	}
	t.Logf("%d fresh, %d replayed, %d in use", fresh, n-fresh-inUse, inUse)
	if inUse == 0 {
		t.Errorf("no twin arrived while the first ran: the test proves nothing")
	}
}

// TestIdempotencyKeyInUseAndAbandoned: a twin of a running call is refused
// while it runs; a record left running past the lease (a crashed process) is
// taken over by the next call.
func TestIdempotencyKeyInUseAndAbandoned(t *testing.T) {
	w := newIdemWorld(t)
	done := make(chan idemResult, 1)
	go func() { done <- w.call("mutation", "u1", "slow", "t.idem.slow", "") }()
	<-w.started
	if r := w.call("mutation", "u1", "slow", "t.idem.slow", ""); r.status != 409 || r.code != "FAILED_PRECONDITION" || r.reason != ReasonIdempotencyKeyInUse {
		t.Fatalf("twin while running: %+v", r)
	}
	if r := w.call("mutation", "u1", "slow", "t.idem.add", `{"n":1}`); r.reason != ReasonIdempotencyKeyReused {
		t.Fatalf("another operation while running: %+v", r)
	}
	close(w.hold)
	first := <-done
	if first.status != 200 || first.body != `"slow done"` {
		t.Fatalf("slow call: %+v", first)
	}
	if r := w.call("mutation", "u1", "slow", "t.idem.slow", ""); !r.replayed || r.body != first.body {
		t.Fatalf("after it finished: %+v", r)
	}

	// A crash: the claim is taken and never settled.
	hash, _ := ArgsHash([]byte(`{"n":5}`))
	if c, _, err := w.ids.begin(context.Background(), "sub:u1", "crash", "t.idem.add", hash); err != nil || c == nil {
		t.Fatalf("claim: %v %v", c, err)
	}
	w.advance(w.ids.Lease / 2)
	if r := w.call("mutation", "u1", "crash", "t.idem.add", `{"n":5}`); r.reason != ReasonIdempotencyKeyInUse || w.total.Load() != 0 {
		t.Fatalf("within the lease: %+v", r)
	}
	if r := w.call("mutation", "u1", "crash", "t.idem.add", `{"n":6}`); r.reason != ReasonIdempotencyKeyReused {
		t.Fatalf("other arguments within the lease: %+v", r)
	}
	w.advance(w.ids.Lease)
	// Past the run's own deadline but not twice the lease: still held (a run
	// that committed right at its deadline must not get a twin).
	if r := w.call("mutation", "u1", "crash", "t.idem.add", `{"n":5}`); r.reason != ReasonIdempotencyKeyInUse || w.total.Load() != 0 {
		t.Fatalf("between one and two leases: %+v", r)
	}
	w.advance(w.ids.Lease)
	took := w.call("mutation", "u1", "crash", "t.idem.add", `{"n":5}`)
	if took.status != 200 || took.replayed || w.total.Load() != 5 {
		t.Fatalf("taking over an abandoned key: %+v total %d", took, w.total.Load())
	}
	if r := w.call("mutation", "u1", "crash", "t.idem.add", `{"n":5}`); !r.replayed || r.body != took.body || w.total.Load() != 5 {
		t.Fatalf("after the takeover: %+v", r)
	}
}

// TestIdempotencyTransientFailuresAreNotKept: UNAVAILABLE and a panic (INTERNAL)
// free the key, so the retry runs; the success after them is kept.
func TestIdempotencyTransientFailuresAreNotKept(t *testing.T) {
	w := newIdemWorld(t)
	if r := w.call("mutation", "u1", "f", "t.idem.flaky", ""); r.status != 503 || r.replayed {
		t.Fatalf("first: %+v", r)
	}
	if r := w.call("mutation", "u1", "f", "t.idem.flaky", ""); r.status != 500 || r.replayed {
		t.Fatalf("second (panic): %+v", r)
	}
	ok := w.call("mutation", "u1", "f", "t.idem.flaky", "")
	if ok.status != 200 || ok.body != "3" || ok.replayed {
		t.Fatalf("third: %+v", ok)
	}
	if r := w.call("mutation", "u1", "f", "t.idem.flaky", ""); !r.replayed || r.body != "3" || w.flaky.Load() != 3 {
		t.Fatalf("fourth: %+v runs %d", r, w.flaky.Load())
	}
}

// TestIdempotencyExpiry: an outcome is kept for 24 hours; after that the key is
// new again, and the prune deletes the expired records.
func TestIdempotencyExpiry(t *testing.T) {
	w := newIdemWorld(t)
	first := w.call("mutation", "u1", "day", "t.idem.add", `{"n":1}`)
	w.advance(24*time.Hour - time.Second)
	if r := w.call("mutation", "u1", "day", "t.idem.add", `{"n":1}`); !r.replayed || r.body != first.body {
		t.Fatalf("within 24 h: %+v", r)
	}
	w.call("mutation", "u1", "other", "t.idem.add", `{"n":1}`) // total 2, kept from now
	w.advance(2 * time.Second)
	if n, err := w.ids.Prune(context.Background()); err != nil || n != 1 || w.records() != 1 {
		t.Fatalf("prune: %d %v, %d left", n, err, w.records())
	}
	again := w.call("mutation", "u1", "day", "t.idem.add", `{"n":9}`) // expired: a new key, any arguments
	if again.status != 200 || again.replayed || w.total.Load() != 11 {
		t.Fatalf("after 24 h: %+v total %d", again, w.total.Load())
	}
	// An expired record the prune has not reached yet is ignored as well.
	w.advance(25 * time.Hour)
	if r := w.call("mutation", "u1", "other", "t.idem.add", `{"n":1}`); r.replayed || w.total.Load() != 12 {
		t.Fatalf("expired, not pruned: %+v", r)
	}
}

// TestIdempotencyKeyWhereItDoesNotApply: a malformed key on a mutation is 400
// and runs nothing; queries ignore the header; anonymous callers and other
// services' calls run without it; refused calls keep nothing.
func TestIdempotencyKeyWhereItDoesNotApply(t *testing.T) {
	w := newIdemWorld(t)
	for _, bad := range []string{strings.Repeat("x", 256), "a\tb", "caf\u00e9"} {
		if r := w.call("mutation", "u1", bad, "t.idem.add", `{"n":1}`); r.status != 400 || r.code != "INVALID_ARGUMENT" || !strings.Contains(r.body, HeaderIdempotencyKey) {
			t.Errorf("key %q: %+v", bad, r)
		}
	}
	if w.total.Load() != 0 {
		t.Fatalf("a refused call ran")
	}
	if r := w.call("query", "u1", "a\tb", "t.idem.read", ""); r.status != 200 || r.replayed {
		t.Errorf("query with a key: %+v", r)
	}
	for range 2 {
		w.call("mutation", "", "anon", "t.idem.public", "")
		w.call("mutation", "", "svc", "t.idem.internal", "", serviceauth.Header, w.peers.assertion("svc", "t"))
	}
	if w.publics.Load() != 4 {
		t.Errorf("anonymous and internal calls: %d runs, want 4", w.publics.Load())
	}
	// A declared caller's call runs each time, for a user too (services send
	// no key; one they relay is not theirs to keep)...
	for range 2 {
		if r := w.call("mutation", "u1", "svc-key", "t.idem.add", `{"n":1}`, serviceauth.Header, w.peers.assertion("svc", "t")); r.status != 200 || r.replayed {
			t.Errorf("a declared caller's call: %+v", r)
		}
	}
	if w.total.Load() != 2 || w.records() != 0 {
		t.Errorf("a declared caller's calls: total %d, %d records", w.total.Load(), w.records())
	}
	// ...and only a declared caller's verified assertion skips the key: an
	// undeclared service's, a forged one or one for another service is an
	// outsider's call, whose key is honoured (the second call replays).
	for name, a := range map[string]string{
		"undeclared": w.peers.assertion("undeclared", "t"), "forged": w.peers.forged("svc", "t"), "for another service": w.peers.assertion("svc", "other"),
	} {
		first := w.call("mutation", "u1", "k-"+name, "t.idem.add", `{"n":1}`, serviceauth.Header, a)
		again := w.call("mutation", "u1", "k-"+name, "t.idem.add", `{"n":1}`, serviceauth.Header, a)
		if first.status != 200 || first.replayed || !again.replayed || again.body != first.body {
			t.Errorf("%s assertion: the key was not honoured: %+v then %+v", name, first, again)
		}
	}
	kept := w.records() // those three keys
	// Refused before a handler runs: the key stays free.
	if r := w.call("mutation", "", "free", "t.idem.add", `{"n":1}`); r.code != "UNAUTHENTICATED" {
		t.Errorf("anonymous: %+v", r)
	}
	if r := w.call("mutation", "u1", "free", "t.idem.read", ""); r.code != "INVALID_ARGUMENT" {
		t.Errorf("query through /api/mutation: %+v", r)
	}
	if w.records() != kept {
		t.Errorf("%d records kept for calls that keep nothing", w.records()-kept)
	}
	if r := w.call("mutation", "u1", "free", "t.idem.add", `{"n":1}`); r.status != 200 || r.replayed {
		t.Errorf("the free key: %+v", r)
	}
	// An argument error is an outcome like any other: kept and replayed.
	bad := w.call("mutation", "u1", "bad-args", "t.idem.add", `{"n":0}`)
	if r := w.call("mutation", "u1", "bad-args", "t.idem.add", `{"n":0}`); bad.status != 400 || !r.replayed || r.body != bad.body {
		t.Errorf("argument error: %+v then %+v", bad, r)
	}
	var v struct {
		Error struct{ Details map[string]any } `json:"error"`
	}
	_ = json.Unmarshal([]byte(bad.body), &v)
	if v.Error.Details["field"] != "n" {
		t.Errorf("argument error body: %s", bad.body)
	}
}

// effects counts what "write" committed.
func (w *idemWorld) effects() int64 {
	n, err := w.db.Collection("effects").CountDocuments(context.Background(), bson.M{})
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

func (w *idemWorld) record(user, key string) idemRecord {
	var r idemRecord
	if err := w.db.Collection(IdempotencyCollection).FindOne(context.Background(), bson.M{"_id": idempotencyID("sub:"+user, key)}).Decode(&r); err != nil {
		w.t.Fatal(err)
	}
	return r
}

// TestKeyedEffectsCommitWithTheirOutcome: a keyed run's writes (in the
// handler's own transactions) and its kept answer commit in one transaction:
// when the answer cannot be kept (its key was taken over), the writes are not
// committed either; when the handler fails after writing, nothing it wrote is
// kept and the error is; a success leaves both, and the retry replays it.
func TestKeyedEffectsCommitWithTheirOutcome(t *testing.T) {
	w := newIdemWorld(t)
	ok := w.call("mutation", "u1", "k-ok", "t.idem.write", `{"n":1}`)
	if ok.status != 200 || ok.body != "1" || w.effects() != 1 {
		t.Fatalf("success: %+v, %d effects", ok, w.effects())
	}
	if r := w.record("u1", "k-ok"); r.State != idemDone || string(r.Body) != "1" {
		t.Fatalf("kept record: %+v", r)
	}
	if again := w.call("mutation", "u1", "k-ok", "t.idem.write", `{"n":1}`); !again.replayed || w.effects() != 1 || w.runs.Load() != 1 {
		t.Fatalf("retry: %+v, %d effects", again, w.effects())
	}

	// The key is taken over while the handler runs (its claim token changes):
	// the run's writes roll back with its answer.
	takeOver := func(ctx context.Context) error {
		_, err := w.db.Collection(IdempotencyCollection).UpdateOne(context.Background(),
			bson.M{"_id": idempotencyID("sub:u1", "k-taken")}, bson.M{"$set": bson.M{"claim": "another run"}})
		return err
	}
	w.afterWrite.Store(&takeOver)
	lost := w.call("mutation", "u1", "k-taken", "t.idem.write", `{"n":2}`)
	if lost.status != 409 || lost.reason != ReasonIdempotencyKeyInUse || w.effects() != 1 {
		t.Fatalf("a run whose key was taken over: %+v, %d effects (want its write rolled back)", lost, w.effects())
	}

	// A failure after the write: nothing written, the error kept.
	fail := func(context.Context) error { return apperr.New(apperr.FailedPrecondition, "refused after writing") }
	w.afterWrite.Store(&fail)
	e1 := w.call("mutation", "u1", "k-fail", "t.idem.write", `{"n":3}`)
	w.afterWrite.Store(nil)
	e2 := w.call("mutation", "u1", "k-fail", "t.idem.write", `{"n":3}`)
	if e1.code != "FAILED_PRECONDITION" || !e2.replayed || e2.body != e1.body || w.effects() != 1 {
		t.Fatalf("failure after writing: %+v then %+v, %d effects", e1, e2, w.effects())
	}

	// A transient failure after the write: nothing written, the key free.
	down := func(context.Context) error { return apperr.New(apperr.Unavailable, "down") }
	w.afterWrite.Store(&down)
	if r := w.call("mutation", "u1", "k-down", "t.idem.write", `{"n":4}`); r.status != 503 || w.effects() != 1 {
		t.Fatalf("transient failure after writing: %+v, %d effects", r, w.effects())
	}
	w.afterWrite.Store(nil)
	if r := w.call("mutation", "u1", "k-down", "t.idem.write", `{"n":4}`); r.status != 200 || r.replayed || w.effects() != 2 {
		t.Fatalf("retry after a transient failure: %+v, %d effects", r, w.effects())
	}

	// A success whose commit went through although its caller saw an error
	// (the acknowledgement cut off by the lease): the failure neither
	// releases nor overwrites the kept success.
	hash, _ := ArgsHash([]byte(`{"n":6}`))
	c, _, err := w.ids.begin(context.Background(), "sub:u1", "k-late", "t.idem.write", hash)
	if err != nil || c == nil {
		t.Fatalf("claim: %v", err)
	}
	if err := w.db.Joined(context.Background(), func(ctx context.Context) error { return w.ids.keep(ctx, c, 200, []byte("6")) }); err != nil {
		t.Fatal(err)
	}
	w.ids.settleFailure(context.Background(), c, 500, nil)
	w.ids.settleFailure(context.Background(), c, 400, []byte(`{"error":{}}`))
	if r := w.call("mutation", "u1", "k-late", "t.idem.write", `{"n":6}`); !r.replayed || r.body != "6" {
		t.Fatalf("a committed success after a failure was reported: %+v, want it replayed", r)
	}

	// Without a key the handler's transaction is its own: a failure after it
	// leaves its write (as before keys existed).
	w.afterWrite.Store(&fail)
	if r := w.call("mutation", "u1", "", "t.idem.write", `{"n":5}`); r.code != "FAILED_PRECONDITION" || w.effects() != 3 {
		t.Fatalf("unkeyed failure after writing: %+v, %d effects", r, w.effects())
	}
}

// TestKeyedRunStartsAgainOnConflict: a handler's transaction that reports a
// conflict inside a keyed run cannot run again on the same snapshot: the
// whole run starts again in a new transaction, once per conflict, and its
// write and answer are kept once; conflicting every time answers UNAVAILABLE
// (contention), writes nothing and frees the key.
func TestKeyedRunStartsAgainOnConflict(t *testing.T) {
	w := newIdemWorld(t)
	w.conflicts.Store(2)
	r := w.call("mutation", "u1", "k1", "t.idem.write", `{"n":7}`)
	if r.status != 200 || r.body != "7" || w.effects() != 1 || w.runs.Load() != 1 {
		t.Fatalf("after two conflicts: %+v, %d effects, %d runs", r, w.effects(), w.runs.Load())
	}
	w.conflicts.Store(store.ContentionAttempts)
	r = w.call("mutation", "u1", "k2", "t.idem.write", `{"n":8}`)
	if r.status != 503 || r.reason != store.ReasonContention || w.effects() != 1 {
		t.Fatalf("always conflicting: %+v, %d effects", r, w.effects())
	}
	if r := w.call("mutation", "u1", "k2", "t.idem.write", `{"n":8}`); r.status != 200 || r.replayed || w.effects() != 2 {
		t.Fatalf("retry after contention: %+v", r)
	}
}

// TestAbandonedKeysFreedAtStart: a claim left running by a process that died
// (its effects never committed) is freed by ReleaseAbandoned, which a service
// calls at its start: the retry then runs at once, not after the lease. A
// finished record is kept. On MongoDB only the claims of this process's own
// name are freed (others' may be in flight), which the filter says.
func TestAbandonedKeysFreedAtStart(t *testing.T) {
	w := newIdemWorld(t)
	w.call("mutation", "u1", "done", "t.idem.write", `{"n":1}`)
	hash, _ := ArgsHash([]byte(`{"n":2}`))
	if c, _, err := w.ids.begin(context.Background(), "sub:u1", "cut", "t.idem.write", hash); err != nil || c == nil {
		t.Fatalf("claim: %v %v", c, err)
	}
	if r := w.call("mutation", "u1", "cut", "t.idem.write", `{"n":2}`); r.reason != ReasonIdempotencyKeyInUse {
		t.Fatalf("before the restart: %+v", r)
	}
	n, err := w.ids.ReleaseAbandoned(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("freed %d: %v", n, err)
	}
	if r := w.call("mutation", "u1", "cut", "t.idem.write", `{"n":2}`); r.status != 200 || r.replayed || w.effects() != 2 {
		t.Fatalf("after the restart: %+v", r)
	}
	if r := w.call("mutation", "u1", "done", "t.idem.write", `{"n":1}`); !r.replayed {
		t.Fatalf("a finished record was freed: %+v", r)
	}
}

// storeIndexes converts the records' indexes as libs/service does.
func storeIndexes(idx []Index) []store.Index {
	out := make([]store.Index, len(idx))
	for i, ix := range idx {
		out[i] = store.Index(ix)
	}
	return out
}
