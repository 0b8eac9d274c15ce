package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"marketplace/libs/events/eventstest"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

type createArgs struct {
	SKU  string `json:"sku" op:"required,nonblank"`
	Name string `json:"name" op:"required"`
}

type getArgs struct {
	SKU string `json:"sku" op:"required"`
}

type item struct {
	SKU  string `bson:"sku" json:"sku"`
	Name string `bson:"name" json:"name"`
}

// testModule is a small bounded context: items with a unique SKU, an
// item.created event per new item, one background loop and one extra route.
type testModule struct {
	loopStarted chan struct{}
	loopStopped chan struct{}
}

func newTestModule() *testModule {
	return &testModule{loopStarted: make(chan struct{}), loopStopped: make(chan struct{})}
}

// tSettings are the test module's own settings (Module.Settings).
type tSettings struct {
	Greeting string `env:"T_GREETING"`
}

func (m *testModule) module() service.Module {
	return service.Module{Name: "t", Build: m.build, Settings: func() any { return &tSettings{} }, Events: events.Versions{"item.created": {1}}}
}

func (m *testModule) build(_ context.Context, env service.Env) (*service.Built, error) {
	items := env.DB.Collection("items")
	create := ops.NewMutation("t.items.create", ops.Public, "Create an item",
		func(ctx context.Context, a *createArgs) (item, error) {
			it := item{SKU: a.SKU, Name: a.Name}
			err := env.DB.Tx(ctx, func(tx context.Context) error {
				if _, err := items.InsertOne(tx, it); err != nil {
					return err
				}
				_, err := env.Outbox.Add(tx, "items", "item.created", it.SKU, it)
				return err
			})
			if store.IsDuplicate(err) {
				return item{}, apperr.New(apperr.AlreadyExists, "sku %s exists", a.SKU)
			}
			if err != nil {
				return item{}, err
			}
			env.Relay.Kick()
			return it, nil
		})
	get := ops.NewQuery("t.items.get", ops.Public, "Get an item",
		func(ctx context.Context, a *getArgs) (item, error) {
			var it item
			err := items.FindOne(ctx, bson.M{"sku": a.SKU}).Decode(&it)
			if store.IsNotFound(err) {
				return item{}, apperr.New(apperr.NotFound, "no item %s", a.SKU)
			}
			return it, err
		})
	greeting := env.Settings.(*tSettings).Greeting
	return &service.Built{
		Registry: ops.NewRegistry("t", create, get),
		Indexes:  []store.Index{{Collection: "items", Keys: bson.D{{Key: "sku", Value: 1}}, Unique: true, Name: "items_sku"}},
		Routes: []ops.Route{
			{Method: "GET", Path: "/hello", Access: ops.Public, Handler: func(c *fiber.Ctx) error { return c.SendString(greeting) }},
			{Method: "GET", Path: "/whoami", Access: ops.Authenticated, Handler: func(c *fiber.Ctx) error { return c.SendString(ops.Caller(c.UserContext()).Sub) }},
		},
		Background: []func(context.Context) error{func(ctx context.Context) error {
			close(m.loopStarted)
			<-ctx.Done()
			close(m.loopStopped)
			return ctx.Err()
		}},
	}, nil
}

type running struct {
	url  string
	pub  *eventstest.Recorder
	stop context.CancelFunc
	done chan error
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func options(t *testing.T, m service.Module, ln net.Listener, pub events.Publisher, ready chan<- struct{}) service.Options {
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	cfg.ShutdownTimeout = 3 * time.Second
	return service.Options{
		Module:    m,
		Listener:  ln,
		DB:        store.Options{Name: "t", Memory: true},
		Publisher: pub,
		Logger:    slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		HTTP:      cfg,
		Getenv:    func(k string) string { return map[string]string{"T_GREETING": "hi from t"}[k] },
		Ready:     ready,
	}
}

// start runs the module until the test ends and waits until it is ready.
func start(t *testing.T, m service.Module) *running {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	ln := listen(t)
	ready := make(chan struct{})
	r := &running{url: "http://" + ln.Addr().String(), pub: &eventstest.Recorder{}, stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- service.Run(ctx, options(t, m, ln, r.pub, ready)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	select {
	case <-ready:
	case err := <-r.done:
		t.Fatalf("Run returned before ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("service not ready in time")
	}
	return r
}

var client = &http.Client{Timeout: 5 * time.Second}

func call(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

func errCode(raw []byte) string {
	e, ok := apperr.Parse(0, raw)
	if !ok {
		return ""
	}
	return string(e.Code)
}

// waitMessages polls the fake publisher until it holds n messages.
func waitMessages(t *testing.T, p *eventstest.Recorder, n int) []events.Message {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		msgs := p.Messages()
		if len(msgs) >= n {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("publisher holds %d messages after 5s, want %d", len(msgs), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunServesTheModule(t *testing.T) {
	m := newTestModule()
	r := start(t, m.module())

	select {
	case <-m.loopStarted:
	case <-time.After(5 * time.Second):
		t.Fatal("background loop did not start")
	}

	t.Run("ops lists the operations", func(t *testing.T) {
		status, raw := call(t, http.MethodGet, r.url+"/ops", "")
		var got struct {
			Service    string                `json:"service"`
			Operations []ops.Descriptor      `json:"operations"`
			Routes     []ops.RouteDescriptor `json:"routes"`
		}
		if status != 200 || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("GET /ops = %d %s", status, raw)
		}
		if len(got.Routes) != 2 || got.Routes[0] != (ops.RouteDescriptor{Method: "GET", Path: "/hello", Access: ops.Public}) ||
			got.Routes[1] != (ops.RouteDescriptor{Method: "GET", Path: "/whoami", Access: ops.Authenticated}) {
			t.Fatalf("GET /ops routes = %s", raw)
		}
		if got.Service != "t" || len(got.Operations) != 2 ||
			got.Operations[0].Path != "t.items.create" || got.Operations[0].Kind != ops.Mutation ||
			got.Operations[1].Path != "t.items.get" || got.Operations[1].Kind != ops.Query {
			t.Fatalf("GET /ops = %s", raw)
		}
	})

	t.Run("probes", func(t *testing.T) {
		cases := []struct {
			path, want string
		}{
			{"/livez", "ok"},
			// No brokers configured: the database is the only check.
			{"/readyz", `{"status":"ready"}`},
			{"/hello", "hi from t"}, // Built.Routes, with a setting of Module.Settings
		}
		// An authenticated route refuses an anonymous caller before its handler runs.
		if status, raw := call(t, http.MethodGet, r.url+"/whoami", ""); status != 401 || errCode(raw) != "UNAUTHENTICATED" {
			t.Errorf("GET /whoami anonymously = %d %s", status, raw)
		}
		for _, c := range cases {
			if status, raw := call(t, http.MethodGet, r.url+c.path, ""); status != 200 || string(raw) != c.want {
				t.Errorf("GET %s = %d %s, want 200 %s", c.path, status, raw, c.want)
			}
		}
	})

	// Operations, in order: each step depends on the previous ones.
	steps := []struct {
		name       string
		kind       string
		body       string
		wantStatus int
		wantCode   string // error code, or empty for success
		wantBody   string // exact JSON result on success
	}{
		{"query before create", "query", `{"path":"t.items.get","args":{"sku":"a1"}}`, 404, "NOT_FOUND", ""},
		{"create", "mutation", `{"path":"t.items.create","args":{"sku":"a1","name":"Apple"}}`, 200, "", `{"sku":"a1","name":"Apple"}`},
		{"query after create", "query", `{"path":"t.items.get","args":{"sku":"a1"}}`, 200, "", `{"sku":"a1","name":"Apple"}`},
		{"dotted path via slash form", "query", `{"path":"t/items:get","args":{"sku":"a1"}}`, 200, "", `{"sku":"a1","name":"Apple"}`},
		// The unique index of Built.Indexes exists: the second a1 is refused.
		{"duplicate sku", "mutation", `{"path":"t.items.create","args":{"sku":"a1","name":"Again"}}`, 409, "ALREADY_EXISTS", ""},
		{"query through mutation", "mutation", `{"path":"t.items.get","args":{"sku":"a1"}}`, 400, "INVALID_ARGUMENT", ""},
		{"bad args", "mutation", `{"path":"t.items.create","args":{"sku":" "}}`, 400, "INVALID_ARGUMENT", ""},
		{"unknown op", "query", `{"path":"t.items.nope","args":{}}`, 404, "NOT_FOUND", ""},
		{"second create", "mutation", `{"path":"t.items.create","args":{"sku":"b2","name":"Banana"}}`, 200, "", `{"sku":"b2","name":"Banana"}`},
	}
	for _, s := range steps {
		status, raw := call(t, http.MethodPost, r.url+"/api/"+s.kind, s.body)
		if status != s.wantStatus {
			t.Fatalf("%s: status %d, want %d (%s)", s.name, status, s.wantStatus, raw)
		}
		if s.wantCode != "" {
			if got := errCode(raw); got != s.wantCode {
				t.Fatalf("%s: code %q, want %q (%s)", s.name, got, s.wantCode, raw)
			}
			continue
		}
		if string(raw) != s.wantBody {
			t.Fatalf("%s: body %s, want %s", s.name, raw, s.wantBody)
		}
	}

	// Exactly the two committed creates reach the broker, in order: the
	// refused duplicate left no event behind (it would come before b2). Each
	// also left its writes on the live topic (liveset/tracking.go), keyed by the
	// collection's key fields (_id and the indexed sku).
	all := waitMessages(t, r.pub, 4)
	var msgs, live []events.Message
	for _, m := range all {
		if m.Topic == liveset.TopicOf("t") {
			live = append(live, m)
		} else {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) != 2 || len(live) != 2 {
		t.Fatalf("published %d messages and %d on live.t, want 2 and 2", len(msgs), len(live))
	}
	for i, want := range []string{"a1", "b2"} {
		env, err := events.Decode(live[i].Value)
		if err != nil {
			t.Fatal(err)
		}
		w, err := liveset.DecodeWrites(string(env.Data))
		if err != nil {
			t.Fatal(err)
		}
		other := map[string]string{"a1": "b2", "b2": "a1"}[want]
		if env.Type != liveset.EventType || env.Source != "t" || !w.Touches(liveset.Read{Coll: "items", Field: "sku", Values: []string{want}}) ||
			w.Touches(liveset.Read{Coll: "items", Field: "sku", Values: []string{other}}) {
			t.Errorf("live message %d: %+v, writes %s", i, env, env.Data)
		}
	}
	for i, want := range []string{"a1", "b2"} {
		msg := msgs[i]
		env, err := events.Decode(msg.Value)
		if err != nil {
			t.Fatal(err)
		}
		var data item
		if err := json.Unmarshal(env.Data, &data); err != nil {
			t.Fatal(err)
		}
		if msg.Topic != "items" || string(msg.Key) != want || env.Type != "item.created" || env.Source != "t" ||
			env.Subject != want || data.SKU != want || env.DataSchema != "urn:marketplace:event:item.created:v1" {
			t.Errorf("message %d = topic %q key %q envelope %+v", i, msg.Topic, msg.Key, env)
		}
	}

	// Stop: Run returns nil, and only after the background loop has stopped.
	r.stop()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		r.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	select {
	case <-m.loopStopped:
	default:
		t.Fatal("Run returned before its background loop stopped")
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(r.url, "http://"), time.Second); err == nil {
		c.Close()
		t.Fatal("still accepting connections after Run returned")
	}
}

func TestRunFailures(t *testing.T) {
	boom := errors.New("boom: no config")
	cases := []struct {
		name    string
		module  service.Module
		db      store.Options
		wantIs  error
		wantMsg string
	}{
		{"build fails", service.Module{Name: "t", Build: func(context.Context, service.Env) (*service.Built, error) {
			return nil, boom
		}}, store.Options{Memory: true}, boom, "t: build: boom"},
		{"unique index violated by existing data", service.Module{Name: "t", Build: func(ctx context.Context, env service.Env) (*service.Built, error) {
			for range 2 {
				if _, err := env.DB.Collection("items").InsertOne(ctx, bson.M{"sku": "dup"}); err != nil {
					return nil, err
				}
			}
			return &service.Built{Registry: ops.NewRegistry("t"), Indexes: []store.Index{
				{Collection: "items", Keys: bson.D{{Key: "sku", Value: 1}}, Unique: true, Name: "items_sku"},
			}}, nil
		}}, store.Options{Memory: true}, nil, "index items_sku on items"},
		{"no database", service.Module{Name: "t", Build: func(context.Context, service.Env) (*service.Built, error) {
			t.Error("Build called without a database")
			return nil, nil
		}}, store.Options{}, nil, "store:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ready := make(chan struct{})
			o := options(t, c.module, listen(t), &eventstest.Recorder{}, ready)
			o.DB = c.db
			done := make(chan error, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			go func() { done <- service.Run(ctx, o) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return")
			}
			if err == nil || !strings.Contains(err.Error(), c.wantMsg) || (c.wantIs != nil && !errors.Is(err, c.wantIs)) {
				t.Fatalf("Run = %v, want an error with %q", err, c.wantMsg)
			}
			select {
			case <-ready:
				t.Fatal("Ready closed although Run failed")
			default:
			}
		})
	}
}
