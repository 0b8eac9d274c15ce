package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"marketplace/libs/apperr"
)

func TestTxCommitsAndAborts(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "t", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("things")
	if err := db.EnsureIndexes(ctx, Index{Collection: "things", Keys: bson.D{{Key: "k", Value: 1}}, Unique: true, Name: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": "a", "k": 1})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = db.Tx(ctx, func(ctx context.Context) error {
		if _, err := c.InsertOne(ctx, bson.M{"_id": "b", "k": 2}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want boom, got %v", err)
	}
	if n, _ := c.CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("aborted transaction left %d documents, want 1", n)
	}
	_, err = c.InsertOne(ctx, bson.M{"_id": "c", "k": 1})
	if !IsDuplicate(err) {
		t.Fatalf("want duplicate, got %v", err)
	}
	if err := c.FindOne(ctx, bson.M{"_id": "zz"}).Err(); !IsNotFound(err) {
		t.Fatalf("want not found, got %v", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestFileStoreSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, Options{Name: "svc", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("x").InsertOne(ctx, bson.M{"_id": "1"}); err != nil {
		t.Fatal(err)
	}
	_ = db.Close(ctx)
	db, err = Open(ctx, Options{Name: "svc", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if n, _ := db.Collection("x").CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("reopened store has %d documents, want 1", n)
	}
}

// A database file that is missing where the data directory shows it existed is
// refused with a clear message, instead of silently opening an empty database;
// the StartEmpty setting opens it empty on purpose; a data directory from before
// the markers existed gets one.
func TestMissingDatabaseFileIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(o Options) (*DB, error) {
		o.Name, o.DataDir = "customers", dir
		return Open(ctx, o)
	}
	write := func(db *DB) {
		t.Helper()
		if err := db.EnsureIndexes(ctx, Index{Collection: "things", Keys: bson.D{{Key: "k", Value: 1}}, Name: "k"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "a", "k": 1}); err != nil {
			t.Fatal(err)
		}
		db.Close(ctx)
	}
	db, err := open(Options{}) // first start
	if err != nil {
		t.Fatal(err)
	}
	write(db)
	file, marker := filepath.Join(dir, "customers.lungo"), filepath.Join(dir, "customers.created")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after the first start: %v", err)
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	_, err = open(Options{})
	if err == nil || !strings.Contains(err.Error(), "customers.lungo is missing") || !strings.Contains(err.Error(), EnvStartEmpty+"=customers") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("the refused open created an empty file")
	}

	db, err = open(Options{StartEmpty: true})
	if err != nil {
		t.Fatalf("start empty on purpose: %v", err)
	}
	if n, _ := db.Collection("things").CountDocuments(ctx, bson.M{}); n != 0 {
		t.Fatalf("%d documents in a database started empty", n)
	}
	write(db)
	db, err = open(Options{}) // the new file is the database now
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Collection("things").CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("%d documents after restart", n)
	}
	db.Close(ctx)

	// A data directory written before markers existed: the open marks it.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	db, err = open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("an existing file was not marked: %v", err)
	}
}

func TestRetryGivesUpUnderContention(t *testing.T) {
	ctx := context.Background()
	n := 0
	v, err := Retry(ctx, "the cart", func(context.Context) (int, error) {
		n++
		if n < 3 {
			return 0, ErrConflict
		}
		return 42, nil
	})
	if v != 42 || err != nil || n != 3 {
		t.Fatalf("retry = %d, %v after %d attempts", v, err, n)
	}
	n = 0
	_, err = Retry(ctx, "the cart", func(context.Context) (int, error) { n++; return 0, ErrConflict })
	if n != ContentionAttempts || apperr.CodeOf(err) != apperr.Unavailable || apperr.From(err).Details["reason"] != ReasonContention {
		t.Fatalf("after %d attempts: %v", n, err)
	}
	boom := errors.New("boom")
	if _, err := Retry(ctx, "x", func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("other errors pass through: %v", err)
	}
}

// TestNoOplog: the embedded engine logs no change events (nothing here
// opens a change stream; the services publish through their outbox) and a
// change stream fails as on a standalone mongod, on either embedded store.
func TestNoOplog(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []Options{{Name: "t", Memory: true}, {Name: "t", DataDir: t.TempDir()}} {
		db, err := Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		c := db.Collection("things")
		for i := range 50 {
			if _, err := c.InsertOne(ctx, bson.M{"_id": i}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.UpdateOne(ctx, bson.M{"_id": i}, bson.M{"$set": bson.M{"n": i}}); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := c.CountDocuments(ctx, bson.M{"n": bson.M{"$gte": 0}}); err != nil || n != 50 {
			t.Fatalf("%d documents written (%v), want 50", n, err)
		}
		n, err := db.client.Database("local").Collection("oplog").CountDocuments(ctx, bson.M{})
		if err != nil || n != 0 {
			t.Fatalf("the oplog holds %d entries (%v), want none", n, err)
		}
		var ce mongo.CommandError
		if _, err := c.Watch(ctx, mongo.Pipeline{}); !errors.As(err, &ce) || ce.Code != 40573 {
			t.Fatalf("a change stream: %v, want the standalone server's error (40573)", err)
		}
		db.Close(ctx)
	}
}
