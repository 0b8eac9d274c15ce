package gateway

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/segmentio/kafka-go"

	"marketplace/gateway/convex"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
)

// board is the service of the Convex protocol tests: each caller's notes and
// a public count of all of them.
type board struct {
	mu        sync.Mutex
	notes     map[string][]string
	countRuns atomic.Int32
	addRuns   sync.Map      // text -> *atomic.Int32: how often add ran for it
	gate      chan struct{} // when set, add waits on it before writing
	lagAfter  atomic.Int64  // nanoseconds add sleeps after writing, before answering
	countLag  atomic.Int64  // nanoseconds count takes
	countNow  atomic.Int32  // count runs in flight
	countPeak atomic.Int32  // the most count runs in flight at once
}

type addArgs struct {
	Text string `json:"text" op:"required"`
}

type failArgs struct {
	Code string `json:"code" op:"required"`
}

type countArgs struct {
	Min *int `json:"min"`
}

type pageArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

func (b *board) add(text string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.notes["direct"] = append(b.notes["direct"], text)
	return len(b.notes["direct"])
}

func (b *board) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.notes {
		n += len(l)
	}
	return n
}

func (b *board) runsOf(text string) int32 {
	v, ok := b.addRuns.Load(text)
	if !ok {
		return 0
	}
	return v.(*atomic.Int32).Load()
}

// startBoard serves the board on loopback with an idempotency store, as a
// real service runs; topics are what it declares on /ops.
func startBoard(t *testing.T, topics ops.Topics) (*board, string) {
	t.Helper()
	b := &board{notes: map[string][]string{}}
	reg := ops.NewRegistry("board",
		ops.NewQuery("board.notes.mine", ops.Authenticated, "", func(ctx context.Context, _ *ops.NoArgs) ([]string, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return append([]string{}, b.notes[ops.Caller(ctx).Sub]...), nil
		}),
		ops.NewQuery("board.notes.count", ops.Public, "", func(ctx context.Context, a *countArgs) (int, error) {
			b.countRuns.Add(1)
			now := b.countNow.Add(1)
			defer b.countNow.Add(-1)
			for peak := b.countPeak.Load(); now > peak && !b.countPeak.CompareAndSwap(peak, now); peak = b.countPeak.Load() {
			}
			time.Sleep(time.Duration(b.countLag.Load()))
			n := b.total()
			if a.Min != nil && n < *a.Min {
				return *a.Min, nil
			}
			return n, nil
		}),
		ops.NewQuery("board.notes.page", ops.Public, "", func(ctx context.Context, a *pageArgs) (page.Result[string], error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			var all []string
			for _, l := range b.notes {
				all = append(all, l...)
			}
			slices.Sort(all)
			start := 0
			if a.PaginationOpts.Cursor != nil && *a.PaginationOpts.Cursor != "" {
				if _, err := fmt.Sscanf(*a.PaginationOpts.Cursor, "%d", &start); err != nil || start > len(all) {
					return page.Result[string]{}, apperr.Invalid("paginationOpts.cursor", "is not a cursor of this query")
				}
			}
			end := min(start+a.PaginationOpts.NumItems, len(all))
			return page.Result[string]{Page: append([]string{}, all[start:end]...), IsDone: end == len(all), ContinueCursor: fmt.Sprint(end)}, nil
		}),
		ops.NewQuery("board.notes.admin", ops.Admin, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return "ok", nil }),
		ops.NewMutation("board.notes.add", ops.Authenticated, "", func(ctx context.Context, a *addArgs) (int, error) {
			v, _ := b.addRuns.LoadOrStore(a.Text, new(atomic.Int32))
			v.(*atomic.Int32).Add(1)
			if b.gate != nil {
				<-b.gate
			}
			b.mu.Lock()
			sub := ops.Caller(ctx).Sub
			b.notes[sub] = append(b.notes[sub], a.Text)
			n := len(b.notes[sub])
			b.mu.Unlock()
			time.Sleep(time.Duration(b.lagAfter.Load()))
			return n, nil
		}),
		ops.NewMutation("board.notes.fail", ops.Authenticated, "", func(ctx context.Context, a *failArgs) (int, error) {
			return 0, apperr.New(apperr.Code(a.Code), "failed as asked").WithDetails(map[string]any{"asked": a.Code})
		}),
	)
	db, err := store.Open(context.Background(), store.Options{Name: "board", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Use(liveset.Track(db)) // as libs/service installs it
	v, _ := auth.NewHS256(secret, auth.Options{})
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	(&ops.Server{Registry: reg, Verifier: v, Topics: topics,
		Idempotency: ops.NewIdempotency(db, slog.New(slog.DiscardHandler))}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() {
		_ = app.Shutdown()
		_ = db.Close(context.Background())
	})
	return b, "http://" + ln.Addr().String()
}

// startConvexGateway runs a gateway in front of the board; it returns the
// gateway and its base URL.
func startConvexGateway(t *testing.T, boardURL string, tune func(*Config)) (*Gateway, string) {
	t.Helper()
	cfg := Config{Services: []string{"board"}, UpstreamTimeout: 5 * time.Second, RefreshInterval: time.Hour,
		Convex: convex.Config{MaxQueriesPerConnection: 100, MaxConnectionsPerCaller: 20}}
	if tune != nil {
		tune(&cfg)
	}
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	g := New(cfg, discovery.NewStatic(map[string]string{"board": boardURL}), v, logger)
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go g.Run(ctx)
	h := httpserver.Defaults()
	h.AccessLog = false
	app := g.App(h, logger)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go app.Listener(ln)
	t.Cleanup(func() {
		cancel()
		_ = app.Shutdown()
	})
	return g, "http://" + ln.Addr().String()
}

func token(t *testing.T, sub string, ttl time.Duration, roles ...string) string {
	tok, err := auth.Mint(secret, sub, roles, ttl, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func convexPost(t *testing.T, gw, path, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", gw+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: %d %s", path, body, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

func errorCode(m map[string]any) string {
	d, _ := m["errorData"].(map[string]any)
	c, _ := d["code"].(string)
	return c
}

func TestConvexHTTP(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	cc := []string{convex.HeaderClient, "npm-1.48.0"}
	user := token(t, "u1", time.Hour)
	withUser := append([]string{"Authorization", "Bearer " + user}, cc...)

	st, m := convexPost(t, gw, "/api/mutation", `{"path":"board/notes:add","args":[{"text":"hello"}],"format":"convex_encoded_json"}`, withUser...)
	if st != 200 || m["status"] != "success" || m["value"] != 1.0 || !reflect.DeepEqual(m["logLines"], []any{}) {
		t.Fatalf("mutation: %d %v", st, m)
	}
	// Encoded values decode to plain JSON for the service: a BigInt 5 is 5.
	st, m = convexPost(t, gw, "/api/query", `{"path":"board/notes.js:count","args":[{"min":{"$integer":"BQAAAAAAAAA="}}],"format":"convex_encoded_json"}`, cc...)
	if st != 200 || m["status"] != "success" || m["value"] != 5.0 {
		t.Fatalf("encoded args: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/query", `{"path":"board.notes.mine","args":{}}`, withUser...)
	if st != 200 || !reflect.DeepEqual(m["value"], []any{"hello"}) {
		t.Fatalf("dotted path, object args: %d %v", st, m)
	}

	// Each failure of an operation: HTTP 200, status error, errorData.code.
	for _, code := range []apperr.Code{apperr.InvalidArgument, apperr.PermissionDenied, apperr.NotFound, apperr.AlreadyExists,
		apperr.FailedPrecondition, apperr.RateLimited, apperr.Unavailable, apperr.Internal} {
		st, m := convexPost(t, gw, "/api/mutation", fmt.Sprintf(`{"path":"board/notes:fail","args":[{"code":%q}]}`, code), withUser...)
		d, _ := m["errorData"].(map[string]any)
		if st != 200 || m["status"] != "error" || errorCode(m) != string(code) || d["asked"] != string(code) || m["errorMessage"] == "" {
			t.Errorf("%s: %d %v", code, st, m)
		}
	}
	st, m = convexPost(t, gw, "/api/query", `{"path":"board/notes:mine","args":[{}]}`, cc...)
	if st != 200 || errorCode(m) != "UNAUTHENTICATED" {
		t.Fatalf("anonymous: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/query", `{"path":"board/notes:admin","args":[{}]}`, withUser...)
	if st != 200 || errorCode(m) != "PERMISSION_DENIED" {
		t.Fatalf("not an admin: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/mutation", `{"path":"board/notes:add","args":[{"text":5}]}`, withUser...)
	if st != 200 || errorCode(m) != "INVALID_ARGUMENT" {
		t.Fatalf("wrong type: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/mutation", `{"path":"board/notes:count","args":[{}]}`, withUser...)
	if st != 200 || errorCode(m) != "INVALID_ARGUMENT" {
		t.Fatalf("a query as a mutation: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/query", `{"path":"board/notes:nope","args":[{}]}`, cc...)
	if st != 200 || m["errorMessage"] != "Could not find public function for 'board/notes:nope'." || errorCode(m) != "NOT_FOUND" {
		t.Fatalf("unknown function: %d %v", st, m)
	}
	st, m = convexPost(t, gw, "/api/action", `{"path":"board/notes:add","args":[{"text":"x"}]}`, withUser...)
	if st != 200 || errorCode(m) != "INVALID_ARGUMENT" || !strings.Contains(m["errorMessage"].(string), "not an action") {
		t.Fatalf("action: %d %v", st, m)
	}

	// Malformed requests and refused tokens keep non-2xx statuses.
	for name, body := range map[string]string{
		"not JSON":     `x`,
		"no path":      `{"args":{}}`,
		"bad path":     `{"path":"board notes","args":{}}`,
		"bad format":   `{"path":"board/notes:count","args":{},"format":"xml"}`,
		"two args":     `{"path":"board/notes:count","args":[{},{}]}`,
		"bad encoding": `{"path":"board/notes:count","args":[{"min":{"$integer":"AQ=="}}]}`,
	} {
		if st, m := convexPost(t, gw, "/api/query", body, cc...); st != 400 {
			t.Errorf("%s: %d %v", name, st, m)
		}
	}
	expired := token(t, "u1", -time.Hour)
	if st, m := convexPost(t, gw, "/api/query", `{"path":"board/notes:count","args":{}}`, "Authorization", "Bearer "+expired, convex.HeaderClient, "npm-1.48.0"); st != 401 {
		t.Fatalf("expired token: %d %v", st, m)
	}

	// /api/run: any kind, path in the URL, no header needed.
	if st, m := convexPost(t, gw, "/api/run/board/notes/count", `{"args":{},"format":"json"}`); st != 200 || m["value"] != 1.0 {
		t.Fatalf("run query: %d %v", st, m)
	}
	if st, m := convexPost(t, gw, "/api/run/board/notes/add", `{"args":{"text":"run"}}`, "Authorization", "Bearer "+user); st != 200 || m["value"] != 2.0 {
		t.Fatalf("run mutation: %d %v", st, m)
	}
	if st, m := convexPost(t, gw, "/api/run/board/notes/zzz", `{"args":{}}`); st != 200 || errorCode(m) != "NOT_FOUND" {
		t.Fatalf("run unknown: %d %v", st, m)
	}
	if st, m := convexPost(t, gw, "/api/run/board", `{"args":{}}`); st != 400 {
		t.Fatalf("run without a function: %d %v", st, m)
	}

	// Without the header nothing changes.
	if st, body, _ := post(t, gw, "query", `{"path":"board.notes.count","args":{}}`); st != 200 || body != "2" {
		t.Fatalf("plain query: %d %s", st, body)
	}
	if st, body, _ := post(t, gw, "query", `{"path":"board.notes.nope"}`); st != 404 || !strings.Contains(body, `"code":"NOT_FOUND"`) {
		t.Fatalf("plain unknown: %d %s", st, body)
	}
	if st, _, _ := post(t, gw, "action", `{"path":"board.notes.count"}`); st != 404 {
		t.Fatalf("plain /api/action: %d", st)
	}
	req, _ := http.NewRequest("OPTIONS", gw+"/api/query", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), convex.HeaderClient) {
		t.Fatalf("browsers may not send %s: %q", convex.HeaderClient, resp.Header.Get("Access-Control-Allow-Headers"))
	}
}

// syncClient is a raw client of the sync protocol that checks every
// Transition chains onto the last one and that timestamps grow.
type syncClient struct {
	t    *testing.T
	ws   *fws.Conn
	msgs chan map[string]any
	done chan struct{}

	mu       sync.Mutex
	problems []string
	version  map[string]any
	lastTS   uint64
	lastMut  uint64
	readErr  error // why reading ended (a *fws.CloseError for a close frame); set before done closes
}

func dialSync(t *testing.T, gw string) *syncClient {
	t.Helper()
	return dialSyncFrom(t, gw, "")
}

// dialSyncFrom opens a socket from a local address of its own (one of
// loopback's 127.0.0.0/8, so the gateway sees another IP address); "" lets
// the system choose.
func dialSyncFrom(t *testing.T, gw, ip string) *syncClient {
	t.Helper()
	return dialSyncPath(t, gw, ip, "/api/"+convex.PinnedClient+"/sync")
}

// dialSyncPath opens the sync socket at path, from ip ("": any).
func dialSyncPath(t *testing.T, gw, ip, path string) *syncClient {
	t.Helper()
	dialer := *fws.DefaultDialer
	if ip != "" {
		dialer.NetDial = func(network, addr string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
			return d.Dial(network, addr)
		}
	}
	ws, _, err := dialer.Dial("ws"+strings.TrimPrefix(gw, "http")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &syncClient{t: t, ws: ws, msgs: make(chan map[string]any, 1000), done: make(chan struct{}),
		version: map[string]any{"querySet": 0.0, "identity": 0.0, "ts": wireTS(0)}}
	go c.read()
	t.Cleanup(func() {
		ws.Close()
		<-c.done
		c.check()
	})
	return c
}

func (c *syncClient) read() {
	defer close(c.done)
	defer close(c.msgs)
	for {
		_, raw, err := c.ws.ReadMessage()
		if err != nil {
			c.readErr = err
			return
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			c.problem("not JSON: %s", raw)
			continue
		}
		c.mu.Lock()
		switch m["type"] {
		case "Transition":
			start, end := m["startVersion"].(map[string]any), m["endVersion"].(map[string]any)
			if !reflect.DeepEqual(start, c.version) {
				c.problems = append(c.problems, fmt.Sprintf("transition starts at %v, the last ended at %v", start, c.version))
			}
			ts, err := readTS(end["ts"].(string))
			if err != nil || ts <= c.lastTS || ts < c.lastMut {
				c.problems = append(c.problems, fmt.Sprintf("transition ts %d after %d (mutation %d)", ts, c.lastTS, c.lastMut))
			}
			c.lastTS, c.version = ts, end
			if _, ok := m["modifications"].([]any); !ok {
				c.problems = append(c.problems, "a transition without modifications")
			}
		case "MutationResponse":
			if m["success"] == true {
				ts, err := readTS(m["ts"].(string))
				if err != nil || ts <= c.lastTS {
					c.problems = append(c.problems, fmt.Sprintf("mutation ts %d not after %d", ts, c.lastTS))
				}
				c.lastMut = ts
			}
		}
		c.mu.Unlock()
		c.msgs <- m
	}
}

func (c *syncClient) problem(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *syncClient) check() {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.problems {
		c.t.Error(p)
	}
	c.problems = nil
}

// send writes one message. A write after the server's close frame arrived
// (the reader answered it, so the socket is closing) is not an error here:
// what the server said is checked by closedWith, and next or expect fail on
// the closed socket.
func (c *syncClient) send(v any) {
	c.t.Helper()
	if err := c.ws.WriteJSON(v); err != nil && !errors.Is(err, fws.ErrCloseSent) {
		c.t.Fatal(err)
	}
}

// next is the next message other than Ping; it fails after 5 s.
func (c *syncClient) next() map[string]any {
	c.t.Helper()
	c.check()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatal("the socket closed")
			}
			if m["type"] == "Ping" {
				continue
			}
			return m
		case <-time.After(15 * time.Second):
			c.t.Fatal("no message within 15s")
		}
	}
}

// expect is the next message, which must be of type typ.
func (c *syncClient) expect(typ string) map[string]any {
	c.t.Helper()
	m := c.next()
	if m["type"] != typ {
		c.t.Fatalf("want %s, got %v", typ, m)
	}
	return m
}

// until skips messages up to the next one of type typ.
func (c *syncClient) until(typ string) map[string]any {
	c.t.Helper()
	for {
		if m := c.next(); m["type"] == typ {
			return m
		}
	}
}

// waitValue reads Transitions until query id shows want.
func (c *syncClient) waitValue(id float64, want any) {
	c.t.Helper()
	for {
		m := c.until("Transition")
		if mod, ok := mods(m)[id]; ok && reflect.DeepEqual(mod["value"], want) {
			return
		}
	}
}

// quiet asserts nothing but pings arrives for d.
func (c *syncClient) quiet(d time.Duration) {
	c.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if ok && m["type"] != "Ping" {
				c.t.Fatalf("unexpected %v", m)
			}
		case <-deadline:
			return
		}
	}
}

// closedWith waits for the server to close the socket with a close frame of
// code whose reason starts with prefix (as convex-js classifies it), and no
// FatalError or AuthError before it.
func (c *syncClient) closedWith(code int, prefix string) {
	c.t.Helper()
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				var ce *fws.CloseError
				if !errors.As(c.readErr, &ce) || ce.Code != code || !strings.HasPrefix(ce.Text, prefix) {
					c.t.Fatalf("closed with %v; want %d %s...", c.readErr, code, prefix)
				}
				return
			}
			if m["type"] == "FatalError" || m["type"] == "AuthError" {
				c.t.Fatalf("%v before the close", m)
			}
		case <-time.After(5 * time.Second):
			c.t.Fatal("the socket did not close")
		}
	}
}

// closed waits for the server to close the socket.
func (c *syncClient) closed() {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.t.Fatal("the socket did not close")
	}
}

func mods(m map[string]any) map[float64]map[string]any {
	out := map[float64]map[string]any{}
	for _, x := range m["modifications"].([]any) {
		mod := x.(map[string]any)
		out[mod["queryId"].(float64)] = mod
	}
	return out
}

func version(m map[string]any, which string) (querySet, identity float64) {
	v := m[which].(map[string]any)
	return v["querySet"].(float64), v["identity"].(float64)
}

func connect(c *syncClient, session, tok string) {
	c.send(map[string]any{"type": "Connect", "sessionId": session, "connectionCount": 0, "lastCloseReason": "InitialConnect", "clientTs": time.Now().UnixMilli()})
	if tok != "" {
		c.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": tok, "baseVersion": 0})
	}
}

func add(id int, path string, args any) map[string]any {
	return map[string]any{"type": "Add", "queryId": id, "udfPath": path, "args": []any{args}}
}

func TestSyncProtocol(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	c := dialSync(t, gw)
	connect(c, "s-protocol", token(t, "u1", time.Hour))
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
		add(0, "board/notes:mine", map[string]any{}), add(1, "board/notes:count", map[string]any{}),
		add(2, "board/notes:nope", map[string]any{}), add(3, "board/notes:count", map[string]any{"min": map[string]any{"$integer": "AQ=="}}),
	}})
	// The identity and the query set arrive with every added query's answer.
	var got map[float64]map[string]any
	for len(got) < 4 {
		tr := c.expect("Transition")
		for id, m := range mods(tr) {
			if got == nil {
				got = map[float64]map[string]any{}
			}
			got[id] = m
		}
		qs, id := version(tr, "endVersion")
		if (qs == 1) != (len(got) == 4) || (qs == 1 && id != 1) {
			t.Fatalf("end version %v, %v with %d of 4 answers", qs, id, len(got))
		}
	}
	if got[0]["type"] != "QueryUpdated" || !reflect.DeepEqual(got[0]["value"], []any{}) || got[1]["value"] != 0.0 ||
		!reflect.DeepEqual(got[1]["logLines"], []any{}) || got[1]["journal"] != nil {
		t.Fatalf("answers: %v", got)
	}
	if got[2]["type"] != "QueryFailed" || got[2]["errorMessage"] != "Could not find public function for 'board/notes:nope'." ||
		got[2]["errorData"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Fatalf("unknown function: %v", got[2])
	}
	if got[3]["type"] != "QueryFailed" || got[3]["errorData"].(map[string]any)["code"] != "INVALID_ARGUMENT" {
		t.Fatalf("bad encoding: %v", got[3])
	}

	// A mutation: its answer, then a Transition with a later ts that shows its
	// effect on this socket's queries.
	c.send(map[string]any{"type": "Mutation", "requestId": 0, "udfPath": "board/notes:add", "args": []any{map[string]any{"text": "one"}}})
	resp := c.expect("MutationResponse")
	if resp["success"] != true || resp["result"] != 1.0 || resp["requestId"] != 0.0 || !reflect.DeepEqual(resp["logLines"], []any{}) {
		t.Fatalf("mutation: %v", resp)
	}
	tr := c.expect("Transition")
	m := mods(tr)
	if !reflect.DeepEqual(m[0]["value"], []any{"one"}) || m[1]["value"] != 1.0 {
		t.Fatalf("after the mutation: %v", tr)
	}
	// A failing mutation: success false, the message, errorData.code.
	c.send(map[string]any{"type": "Mutation", "requestId": 1, "udfPath": "board/notes:fail", "args": []any{map[string]any{"code": "FAILED_PRECONDITION"}}})
	resp = c.expect("MutationResponse")
	if resp["success"] != false || resp["result"] != "failed as asked" || resp["errorData"].(map[string]any)["code"] != "FAILED_PRECONDITION" {
		t.Fatalf("failed mutation: %v", resp)
	}
	// An action: the platform has none.
	c.send(map[string]any{"type": "Action", "requestId": 2, "udfPath": "board/notes:count", "args": []any{map[string]any{}}})
	resp = c.expect("ActionResponse")
	if resp["success"] != false || resp["errorData"].(map[string]any)["code"] != "INVALID_ARGUMENT" {
		t.Fatalf("action: %v", resp)
	}
	// A change that leaves a value as it was pushes nothing for it.
	c.send(map[string]any{"type": "Mutation", "requestId": 3, "udfPath": "board/notes:fail", "args": []any{map[string]any{"code": "NOT_FOUND"}}})
	c.expect("MutationResponse")
	// Remove: QueryRemoved and the next query set version.
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{map[string]any{"type": "Remove", "queryId": 1}}})
	tr = c.expect("Transition")
	if qs, _ := version(tr, "endVersion"); qs != 2 || mods(tr)[1]["type"] != "QueryRemoved" || len(mods(tr)) != 1 {
		t.Fatalf("remove: %v", tr)
	}
	c.send(map[string]any{"type": "Event", "eventType": "ClientConnect", "event": map[string]any{}})
	// A query set version that does not follow is fatal.
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 7, "newVersion": 8, "modifications": []any{}})
	if f := c.expect("FatalError"); !strings.Contains(f["error"].(string), "Base version") {
		t.Fatalf("fatal: %v", f)
	}
	c.closed()
}

// Live queries: a socket's subscription follows writes of any client; values
// that do not change are not pushed; subscribers of one query share its runs.
func TestSyncLiveQueries(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	u1, u2 := token(t, "u1", time.Hour), token(t, "u2", time.Hour)
	a, bb := dialSync(t, gw), dialSync(t, gw)
	connect(a, "s-a", u1)
	connect(bb, "s-b", u2)
	for _, c := range []*syncClient{a, bb} {
		c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
			add(0, "board/notes:count", map[string]any{}), add(1, "board/notes:mine", map[string]any{})}})
		for n := 0; n < 2; {
			n += len(mods(c.expect("Transition")))
		}
	}
	runs := b.countRuns.Load()
	// u2 writes over plain HTTP: both sockets see the count, and only u2's
	// "mine" changes, so a gets nothing for it.
	if st, body, _ := post(t, gw, "mutation", `{"path":"board.notes.add","args":{"text":"x"}}`, "Authorization", "Bearer "+u2); st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	ma := mods(a.expect("Transition"))
	if len(ma) != 1 || ma[0]["value"] != 1.0 {
		t.Fatalf("a: %v", ma)
	}
	mb := map[float64]map[string]any{}
	for len(mb) < 2 {
		for id, m := range mods(bb.expect("Transition")) {
			mb[id] = m
		}
	}
	if mb[0]["value"] != 1.0 || !reflect.DeepEqual(mb[1]["value"], []any{"x"}) {
		t.Fatalf("b: %v", mb)
	}
	// count is the same query for both, but their callers differ: one run each.
	if got := b.countRuns.Load() - runs; got != 2 {
		t.Fatalf("count ran %d times for 2 callers", got)
	}
	a.quiet(200 * time.Millisecond)

	// Three anonymous sockets on one query share one run per change.
	var anon []*syncClient
	for i := range 3 {
		c := dialSync(t, gw)
		connect(c, fmt.Sprintf("s-anon-%d", i), "")
		c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(5, "board/notes:count", map[string]any{})}})
		c.expect("Transition")
		anon = append(anon, c)
	}
	runs = b.countRuns.Load()
	b.add("direct write") // not through the gateway: nobody knows
	if st, body, _ := post(t, gw, "mutation", `{"path":"board.notes.add","args":{"text":"y"}}`, "Authorization", "Bearer "+u1); st != 200 {
		t.Fatalf("%d %s", st, body)
	}
	for _, c := range anon {
		if m := mods(c.expect("Transition")); m[5]["value"] != 3.0 {
			t.Fatalf("anonymous: %v", m)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if got := b.countRuns.Load() - runs; got != 3 { // u1's, u2's and the anonymous one
		t.Fatalf("count ran %d times for 3 distinct callers and 5 sockets", got)
	}
}

// Paginated queries: Convex's paginationOpts (numItems, cursor, id) reach the
// operation; the answer keeps { page, isDone, continueCursor }.
func TestSyncPaginatedQuery(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	for _, s := range []string{"a", "b", "c"} {
		b.add(s)
	}
	c := dialSync(t, gw)
	connect(c, "s-page", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
		add(0, "board/notes:page", map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": nil, "id": 1}})}})
	v := mods(c.expect("Transition"))[0]["value"].(map[string]any)
	if !reflect.DeepEqual(v["page"], []any{"a", "b"}) || v["isDone"] != false || v["continueCursor"] != "2" {
		t.Fatalf("first page: %v", v)
	}
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		add(1, "board/notes:page", map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": "2", "id": 1, "endCursor": "3"}})}})
	v = mods(c.expect("Transition"))[1]["value"].(map[string]any)
	if !reflect.DeepEqual(v["page"], []any{"c"}) || v["isDone"] != true {
		t.Fatalf("second page: %v", v)
	}
}

func TestSyncAuthentication(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)

	// A token that does not verify: AuthError in answer to Authenticate, then close.
	c := dialSync(t, gw)
	connect(c, "s-bad", token(t, "u1", -time.Hour))
	e := c.expect("AuthError")
	if e["authUpdateAttempted"] != true || e["baseVersion"] != 0.0 || e["error"] == "" {
		t.Fatalf("expired token: %v", e)
	}
	c.closed()

	// Anonymous first: an authenticated query fails; after Authenticate it runs
	// again as the caller, with the identity version.
	c = dialSync(t, gw)
	connect(c, "s-late", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:mine", map[string]any{})}})
	if m := mods(c.expect("Transition"))[0]; m["type"] != "QueryFailed" || m["errorData"].(map[string]any)["code"] != "UNAUTHENTICATED" {
		t.Fatalf("anonymous: %v", m)
	}
	c.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u9", time.Hour), "baseVersion": 0})
	tr := c.expect("Transition")
	if qs, id := version(tr, "endVersion"); qs != 1 || id != 1 || mods(tr)[0]["type"] != "QueryUpdated" {
		t.Fatalf("after Authenticate: %v", tr)
	}
	// Back to anonymous (tokenType None).
	c.send(map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": 1})
	tr = c.expect("Transition")
	if _, id := version(tr, "endVersion"); id != 2 || mods(tr)[0]["type"] != "QueryFailed" {
		t.Fatalf("after logging out: %v", tr)
	}
	// A wrong identity base version is Convex's internal error: the socket
	// closes (1011) and the client reconnects with its state.
	c.send(map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": 0})
	c.closedWith(fws.CloseInternalServerErr, "InternalServerError")

	// A token that expires while the socket is open: AuthError, not attempted.
	c = dialSync(t, gw)
	connect(c, "s-short", token(t, "u1", 1500*time.Millisecond))
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:mine", map[string]any{})}})
	e = c.until("AuthError")
	if e["authUpdateAttempted"] != false || e["baseVersion"] != 1.0 {
		t.Fatalf("expiry: %v", e)
	}
	c.closed()
}

// A mutation the client sends again after a reconnect (same session and
// request id) is not applied twice, whether its first run finished or was
// still running when the socket dropped.
func TestSyncReconnectDoesNotApplyTwice(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	tok := token(t, "u1", time.Hour)
	mutation := func(id int, text string) map[string]any {
		return map[string]any{"type": "Mutation", "requestId": id, "udfPath": "board/notes:add", "args": []any{map[string]any{"text": text}}}
	}

	// The first run is in flight when the socket drops.
	b.gate = make(chan struct{})
	c := dialSync(t, gw)
	connect(c, "s-replay", tok)
	c.send(mutation(0, "once"))
	waitFor(t, func() bool { return b.runsOf("once") == 1 })
	c.ws.Close()
	c2 := dialSync(t, gw)
	connect(c2, "s-replay", tok)
	c2.send(mutation(0, "once"))
	time.Sleep(200 * time.Millisecond) // the replay meets its twin running
	close(b.gate)
	r := c2.until("MutationResponse")
	if r["success"] != true || r["result"] != 1.0 {
		t.Fatalf("replay: %v", r)
	}
	// And again after it finished: the kept outcome.
	c3 := dialSync(t, gw)
	connect(c3, "s-replay", tok)
	c3.send(mutation(0, "once"))
	if r := c3.until("MutationResponse"); r["success"] != true || r["result"] != 1.0 {
		t.Fatalf("second replay: %v", r)
	}
	if n := b.runsOf("once"); n != 1 {
		t.Fatalf("the mutation ran %d times", n)
	}
	b.mu.Lock()
	notes := slices.Clone(b.notes["u1"])
	b.mu.Unlock()
	if !reflect.DeepEqual(notes, []string{"once"}) {
		t.Fatalf("notes: %v", notes)
	}
	// Another request id, or another session, is another mutation.
	c3.send(mutation(1, "once"))
	if r := c3.until("MutationResponse"); r["result"] != 2.0 {
		t.Fatalf("next request: %v", r)
	}
	c4 := dialSync(t, gw)
	connect(c4, "s-other", tok)
	c4.send(mutation(0, "once"))
	if r := c4.until("MutationResponse"); r["result"] != 3.0 {
		t.Fatalf("other session: %v", r)
	}
}

func TestSyncLimitsAndPing(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxQueriesPerConnection, c.Convex.MaxConnectionsPerCaller = 2, 2
		c.Convex.Heartbeat = 300 * time.Millisecond
	})

	c := dialSync(t, gw)
	connect(c, "s-limit", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
		add(0, "board/notes:count", map[string]any{}), add(1, "board/notes:count", map[string]any{"min": 1}),
		add(2, "board/notes:count", map[string]any{"min": 2})}})
	got := map[float64]map[string]any{}
	for len(got) < 3 {
		for id, m := range mods(c.expect("Transition")) {
			got[id] = m
		}
	}
	if got[2]["type"] != "QueryFailed" || got[2]["errorData"].(map[string]any)["code"] != "RATE_LIMITED" || got[0]["type"] != "QueryUpdated" {
		t.Fatalf("third query: %v", got)
	}
	// Silence brings a Ping.
	select {
	case m := <-c.msgs:
		if m["type"] != "Ping" {
			t.Fatalf("want Ping, got %v", m)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no Ping after a silence")
	}
	// Sockets per caller: the third anonymous one from this address is refused
	// once it adds queries; a signed-in caller counts apart.
	c2 := dialSync(t, gw)
	connect(c2, "s-limit-2", "")
	c2.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{}})
	c2.expect("Transition")
	// Closed with "try again later": the client retries after its backoff (a
	// FatalError would stop it for good).
	c3 := dialSync(t, gw)
	connect(c3, "s-limit-3", "")
	c3.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{}})
	c3.closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	c2.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u1", time.Hour), "baseVersion": 0})
	c2.expect("Transition")
	c4 := dialSync(t, gw)
	connect(c4, "s-limit-4", "")
	c4.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{}})
	c4.expect("Transition")
}

// Events: a topic the service publishes re-runs its queries at once; one it
// consumes, once the consumer group committed past the event (its effect is
// visible then, not before). The broker requires SASL/SCRAM, as the
// all-in-one's does: the gateway follows it with the credentials it is given.
func TestSyncFollowsEvents(t *testing.T) {
	broker, err := events.StartBrokerWith(events.BrokerOptions{Topics: []string{"board.events", "board.inbox"},
		Users: []events.Credentials{{Mechanism: events.SASLScramSHA512, Username: "board", Password: "board-password"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	kb := broker.Brokers()
	b, boardURL := startBoard(t, ops.Topics{Publishes: []string{"board.events"}, Consumes: []string{"board.inbox"}})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) { c.Convex.Brokers = kb })
	w := &kafka.Writer{Addr: kb.Addr(), Transport: kb.Transport("board"), BatchTimeout: time.Millisecond, AllowAutoTopicCreation: true}
	defer w.Close()
	publish := func(topic string) {
		t.Helper()
		if err := w.WriteMessages(context.Background(), kafka.Message{Topic: topic, Value: []byte(`{"id":"e"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	// The board's consumer applies an event 300 ms after reading it, then commits.
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: kb.Addrs, Dialer: kb.Dialer("board"), GroupID: "board-consumer", GroupTopics: []string{"board.inbox"},
		MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 50 * time.Millisecond, HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: time.Second,
		RebalanceTimeout: time.Second, StartOffset: kafka.FirstOffset})
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var consumed atomic.Int32
	go func() {
		for {
			m, err := r.FetchMessage(ctx)
			if err != nil {
				return
			}
			time.Sleep(300 * time.Millisecond)
			b.add("consumed")
			if r.CommitMessages(ctx, m) == nil {
				consumed.Add(1)
			}
		}
	}()

	c := dialSync(t, gw)
	connect(c, "s-events", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:count", map[string]any{})}})
	c.waitValue(0, 0.0)
	// The gateway reads from the end, and the consumer must have joined: warm up.
	waitFor(t, func() bool {
		publish("board.events")
		time.Sleep(50 * time.Millisecond)
		return g.convex.Stats().EventsRead > 0
	})
	publish("board.inbox")
	waitFor(t, func() bool { return consumed.Load() == 1 })
	c.waitValue(0, 1.0)

	b.add("published")
	publish("board.events")
	c.waitValue(0, 2.0)

	start := time.Now()
	publish("board.inbox")
	c.waitValue(0, 3.0)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("pushed after %v, before the consumer applied the event", d)
	}
}

// A service whose success answer is not JSON is INTERNAL, over HTTP and on a
// socket: answers copy a value into their JSON as is, so it is checked first.
func TestConvexNonJSONAnswerIsInternal(t *testing.T) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/ops", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"service": "board", "operations": []fiber.Map{{"path": "board.notes.bad", "kind": "query", "access": "public"}}})
	})
	app.Post("/api/query", func(c *fiber.Ctx) error { return c.Status(200).SendString(`{"half":`) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	_, gw := startConvexGateway(t, "http://"+ln.Addr().String(), nil)
	if st, m := convexPost(t, gw, "/api/run/board/notes/bad", `{"args":{}}`); st != 200 || errorCode(m) != "INTERNAL" || m["errorMessage"] != "internal error" {
		t.Fatalf("http: %d %v", st, m)
	}
	c := dialSync(t, gw)
	connect(c, "s-junk", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:bad", map[string]any{})}})
	if m := mods(c.expect("Transition"))[0]; m["type"] != "QueryFailed" || m["errorData"].(map[string]any)["code"] != "INTERNAL" {
		t.Fatalf("socket: %v", m)
	}
}

// wireTS and readTS are a sync timestamp on the wire as the client reads it:
// base64 of its 8 little-endian bytes (written here apart from the layer's
// own, so the tests check the layer's encoding).
func wireTS(ts uint64) string {
	return base64.StdEncoding.EncodeToString(binary.LittleEndian.AppendUint64(nil, ts))
}

func readTS(s string) (uint64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != 8 {
		return 0, fmt.Errorf("timestamp %q is not the base64 of 8 bytes", s)
	}
	return binary.LittleEndian.Uint64(b), nil
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("not within 5s")
		}
	}
}
