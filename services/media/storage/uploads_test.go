package storage

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
	"marketplace/services/media/domain"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{Name: "media", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	if err := db.EnsureIndexes(context.Background(), Indexes()...); err != nil {
		t.Fatal(err)
	}
	if err := NewTotals(db).Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func total(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var u struct {
		Bytes int64 `bson:"bytes"`
	}
	if err := db.Collection("usage").FindOne(context.Background(), bson.M{"_id": "stored"}).Decode(&u); err != nil {
		t.Fatal(err)
	}
	return u.Bytes
}

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// TestReserveHoldsTheCapUnderConcurrency: of uploads reserved at once, only
// as many as fit under the cap are recorded, and the total is theirs.
func TestReserveHoldsTheCapUnderConcurrency(t *testing.T) {
	db := openDB(t)
	r := NewUploads(db)
	const size, max, n = 100, 350, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	reserved := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			full, err := r.Reserve(context.Background(), domain.NewPending(string(rune('a'+i)), "u", size, t0), max)
			if err != nil {
				t.Error(err)
				return
			}
			if !full {
				mu.Lock()
				reserved++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if reserved != 3 || total(t, db) != 3*size {
		t.Fatalf("%d reserved, total %d (cap %d)", reserved, total(t, db), max)
	}
	if n, _ := db.Collection("uploads").CountDocuments(context.Background(), bson.M{"state": "pending"}); n != 3 {
		t.Fatalf("%d pending documents", n)
	}
	// Exactly at the cap: one of 50 fits, one of 51 does not.
	if full, err := r.Reserve(context.Background(), domain.NewPending("z1", "u", 51, t0), max); err != nil || !full {
		t.Fatalf("one byte over the cap: full=%v %v", full, err)
	}
	if full, err := r.Reserve(context.Background(), domain.NewPending("z2", "u", 50, t0), max); err != nil || full {
		t.Fatalf("exactly the cap: full=%v %v", full, err)
	}
	if full, err := r.Reserve(context.Background(), domain.NewPending("z3", "u", 1<<40, t0), 0); err != nil || full {
		t.Fatalf("no cap: full=%v %v", full, err)
	}
}

// TestCompleteAndRelease: a stored upload replaces its pending document and
// corrects the total; a release drops a pending one and its reservation, and
// leaves a stored one alone.
func TestCompleteAndRelease(t *testing.T) {
	db := openDB(t)
	r := NewUploads(db)
	ctx := context.Background()
	u := domain.NewPending("a", "u", 1000, t0)
	if full, err := r.Reserve(ctx, u, 0); err != nil || full {
		t.Fatal(full, err)
	}
	if err := u.Store("image/gif", 42, "ab"); err != nil {
		t.Fatal(err)
	}
	if err := r.Complete(ctx, u, 1000); err != nil {
		t.Fatal(err)
	}
	got, err := r.Get(ctx, "a")
	if err != nil || got == nil || *got != u || total(t, db) != 42 {
		t.Fatalf("stored: %+v %v, total %d", got, err, total(t, db))
	}
	if err := r.Complete(ctx, u, 1000); err == nil {
		t.Fatal("a second completion found a pending document")
	}
	if err := r.Release(ctx, "a", 1000); err != nil || total(t, db) != 42 {
		t.Fatalf("released a stored upload: %v, total %d", err, total(t, db))
	}
	p := domain.NewPending("b", "u", 500, t0)
	if _, err := r.Reserve(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.Release(ctx, "b", 500); err != nil || total(t, db) != 42 {
		t.Fatalf("release: %v, total %d", err, total(t, db))
	}
	if got, _ := r.Get(ctx, "b"); got != nil {
		t.Fatalf("the released upload is still there: %+v", got)
	}
}

// TestDeleteAbandonedSparesAClaim: an upload claimed between the sweep's
// reading and its delete is kept (a claim racing the sweep wins); an
// abandoned one goes, with its bytes off the total.
func TestDeleteAbandonedSparesAClaim(t *testing.T) {
	db := openDB(t)
	r := NewUploads(db)
	ctx := context.Background()
	for _, id := range []string{"kept", "gone"} {
		u := domain.NewPending(id, "alice", 10, t0)
		if _, err := r.Reserve(ctx, u, 0); err != nil {
			t.Fatal(err)
		}
		_ = u.Store("image/gif", 10, "ab")
		if err := r.Complete(ctx, u, 10); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(25 * time.Hour)
	a := domain.Abandonments(now, 24*time.Hour)[0]
	batch, err := r.Abandoned(ctx, a, 10)
	if err != nil || len(batch) != 2 {
		t.Fatalf("abandoned: %+v %v", batch, err)
	}
	// Bob claims nothing of Alice's; Alice claims one.
	if err := r.Claim(ctx, "bob", []string{"gone", "kept"}, now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := r.Claim(ctx, "alice", []string{"kept"}, now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	for _, u := range batch {
		deleted, err := r.DeleteAbandoned(ctx, u, a)
		if err != nil || deleted != (u.ID == "gone") {
			t.Errorf("%s: deleted %v %v", u.ID, deleted, err)
		}
	}
	if total(t, db) != 10 {
		t.Fatalf("total %d", total(t, db))
	}
	found, err := r.Find(ctx, []string{"kept", "gone"})
	if err != nil || len(found) != 1 || found[0].ID != "kept" || !found[0].Referenced {
		t.Fatalf("after the sweep: %+v %v", found, err)
	}
	// Claiming again keeps the first claim's time.
	if err := r.Claim(ctx, "alice", []string{"kept"}, now.Add(time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get(ctx, "kept"); got.ReferencedAt != now.UnixMilli() {
		t.Fatalf("the first claim's time changed: %+v", got)
	}
}
