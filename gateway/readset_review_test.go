package gateway

// Review of issue 23: a service's statement of what a query read or a
// mutation wrote travels in a response header, which the gateway's client
// must read whatever its size (the service caps it only by values: 256 per
// read, 512 per collection written).

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
	"marketplace/libs/store"
)

// bigSetsService serves a query that reads 250 documents by id and a
// mutation that changes 100 documents with two key fields, over a real
// (in-memory) database whose collections report them.
func bigSetsService(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "bigsets", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Use(liveset.Track(db)) // as libs/service installs it
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, store.Index{Collection: "things", Keys: bson.D{{Key: "ref", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	ids := make([]any, 250)
	docs := make([]any, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("things_%024x", i)
	}
	for i := range docs {
		docs[i] = bson.M{"_id": ids[i], "ref": fmt.Sprintf("refs_%024x", i), "group": "g"}
	}
	if _, err := db.Collection("things").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewHS256(secret, auth.Options{})
	reg := ops.NewRegistry("fake",
		ops.NewQuery("fake.things.many", ops.Public, "", func(ctx context.Context, _ *ops.NoArgs) (int, error) {
			cur, err := db.Collection("things").Find(ctx, bson.M{"_id": bson.M{"$in": ids}})
			if err != nil {
				return 0, err
			}
			var out []bson.M
			err = cur.All(ctx, &out)
			return len(out), err
		}),
		ops.NewMutation("fake.things.touchAll", ops.Public, "", func(ctx context.Context, _ *ops.NoArgs) (int64, error) {
			res, err := db.Collection("things").UpdateMany(ctx, bson.M{"group": "g"}, bson.M{"$inc": bson.M{"n": 1}})
			if err != nil {
				return 0, err
			}
			return res.ModifiedCount, nil
		}),
	)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	(&ops.Server{Registry: reg, Verifier: v}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func TestReviewLargeLiveHeadersPassTheGateway(t *testing.T) {
	url := bigSetsService(t)
	// The service itself answers, with the sets in its headers.
	st, body, h := post(t, url, "query", `{"path":"fake.things.many"}`)
	if st != 200 || body != "100" {
		t.Fatalf("the service: %d %s", st, body)
	}
	t.Logf("X-Live-Reads: %d bytes", len(h.Get("X-Live-Reads")))
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.many"}`); st != 200 || body != "100" {
		t.Errorf("a query that read 250 ids, through the gateway: %d %s", st, body)
	}
	st, body, _ = post(t, gw, "mutation", `{"path":"fake.things.touchAll"}`)
	if st != 200 || body != "100" {
		t.Errorf("a mutation that changed 100 documents, through the gateway (it committed): %d %s", st, body)
	}
	_, _, h = post(t, url, "mutation", `{"path":"fake.things.touchAll"}`)
	t.Logf("X-Live-Writes: %d bytes", len(h.Get("X-Live-Writes")))
}
