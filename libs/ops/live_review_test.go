package ops

// Review of issue 23: what an answer says a mutation wrote (X-Live-Writes).

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/store"
)

// A replayed mutation (same Idempotency-Key: the client's answer was lost)
// ran nothing this time, but what its first run wrote is what its answer
// stands for: the replay's answer must not say it wrote nothing (a gateway
// would then re-run none of the live queries the first run changed, and a
// socket's mutation would be answered before its queries show it).
func TestReviewReplayDoesNotClaimNoWrites(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "idemlive", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Use(liveset.Track(db)) // as libs/service installs it
	t.Cleanup(func() { db.Close(ctx) })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ids := NewIdempotency(db, logger)
	if err := db.EnsureIndexes(ctx, storeIndexes(ids.Indexes())...); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry("t",
		NewMutation("t.things.add", Authenticated, "", func(ctx context.Context, _ *NoArgs) (string, error) {
			_, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "x1"})
			return "x1", err
		}),
	)
	app := httpserver.New("t", httpserver.Defaults(), logger, nil)
	(&Server{Registry: reg, Verifier: subVerifier{}, Idempotency: ids}).Mount(app)
	call := func() (int, string) {
		req := httptest.NewRequest(http.MethodPost, "/api/mutation", strings.NewReader(`{"path":"t.things.add"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer u1")
		req.Header.Set(HeaderIdempotencyKey, "k1")
		req.Header.Set(liveset.HeaderWant, "1")
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get(liveset.HeaderWrites)
	}
	thing := liveset.Read{Coll: "things", Field: "_id", Values: []string{"x1"}}
	st, first := call()
	w, err := liveset.DecodeWrites(first)
	if st != 200 || err != nil || !w.Touches(thing) {
		t.Fatalf("first run: %d %q %v", st, first, err)
	}
	st, again := call()
	if st != 200 {
		t.Fatalf("replay: %d", st)
	}
	if again == "" {
		return // not stated: the gateway takes it as unknown
	}
	if w, err := liveset.DecodeWrites(again); err != nil || !w.Touches(thing) {
		t.Fatalf("the replay's answer says it wrote %q: a live query of thing x1 would not run again", again)
	}
}

// A query whose answer rests on another service's (the payouts listings
// name each store's owner and phone from the catalog, uncached) must not
// state reads that leave the other service out: the gateway would re-run it
// only on its own service's writes touching them, never on the catalog's
// (and it no longer re-runs the queries of a service that declares a live
// topic on the domain events it consumes).
func TestReviewReadsOfAQueryThatCallsAnotherService(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	peers := newTestPeers(t, "catalog", "payouts")
	cdb, err := store.Open(ctx, store.Options{Name: "catalogdb", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	cdb.Use(liveset.Track(cdb)) // as libs/service installs it
	t.Cleanup(func() { cdb.Close(ctx) })
	catalog := NewRegistry("catalog",
		NewQuery("catalog.stores.contact", Internal, "", func(ctx context.Context, _ *NoArgs) (string, error) {
			var d bson.M
			err := cdb.Collection("stores").FindOne(ctx, bson.M{"_id": "s1"}).Decode(&d)
			if store.IsNotFound(err) {
				return "nobody", nil
			}
			return "someone", err
		}, CalledBy("payouts")),
	)
	capp := httpserver.New("catalog", httpserver.Defaults(), logger, nil)
	(&Server{Registry: catalog, Verifier: subVerifier{}, Peers: peers.verifier, Callers: []string{"payouts"}}).Mount(capp)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go capp.Listener(ln)
	t.Cleanup(func() { _ = capp.Shutdown() })
	calls := NewClient(staticResolver{"catalog": "http://" + ln.Addr().String()}, peers.signer("payouts"), 2*time.Second)

	pdb, err := store.Open(ctx, store.Options{Name: "payoutsdb", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	pdb.Use(liveset.Track(pdb)) // as libs/service installs it
	t.Cleanup(func() { pdb.Close(ctx) })
	payouts := NewRegistry("payouts",
		NewQuery("payouts.payouts.list", Public, "", func(ctx context.Context, _ *NoArgs) (string, error) {
			n, err := pdb.Collection("payouts").CountDocuments(ctx, bson.M{})
			if err != nil {
				return "", err
			}
			var who string
			if err := calls.Query(ctx, "catalog", "catalog.stores.contact", nil, &who); err != nil {
				return "", err
			}
			return fmt.Sprint(n, " payouts of ", who), nil
		}),
	)
	papp := httpserver.New("payouts", httpserver.Defaults(), logger, nil)
	(&Server{Registry: payouts, Verifier: subVerifier{}}).Mount(papp)
	req := httptest.NewRequest(http.MethodPost, "/api/query", strings.NewReader(`{"path":"payouts.payouts.list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(liveset.HeaderWant, "1")
	resp, err := papp.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != `"0 payouts of nobody"` {
		t.Fatalf("the query: %d %s", resp.StatusCode, b)
	}
	reads := resp.Header.Get(liveset.HeaderReads)
	if reads == "" {
		t.Fatal("the answer states no reads: the catalog's reads were to join the query's")
	}
	if !strings.Contains(reads, `"s":"catalog","c":"stores","f":"_id","v":["s1"]`) || !strings.Contains(reads, `"c":"payouts"`) {
		t.Fatalf("the query's answer rests on the catalog's stores, but it states it read only %s", reads)
	}
}
