package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/256dpi/lungo/boltstore"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
)

// A commit the file could not write or read back is refused, that commit
// only: a document nested deeper than the file's reader goes (it was
// accepted, and the database then refused to start: "file is damaged"), or a
// field name with a null byte ($rename's new name is a string value, which
// may hold one: the write failed the file, and the database took no more
// writes). Later writes go on, and the file opens again with them.
func TestReview28FileRefusesWhatItCannotReadBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	c := db.Collection("things")

	nested := func(levels int) any {
		var v any = "leaf"
		for i := 0; i < levels; i++ {
			if i%2 == 0 {
				v = bson.M{"a": v}
			} else {
				v = bson.A{v}
			}
		}
		return v
	}
	// MongoDB's limit, 100 levels (each document or array one), is kept
	if _, err := c.InsertOne(ctx, bson.M{"_id": "deep-ok", "v": nested(boltstore.MaxDepth - 1)}); err != nil {
		t.Fatalf("a document of %d levels: %v", boltstore.MaxDepth, err)
	}
	// The file store's refusal (boltstore.UnstorableError) in the project's
	// terms: the client sees the code and message, the log the whole chain.
	_, err := c.InsertOne(ctx, bson.M{"_id": "deep", "v": nested(250)})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument || ae.Message != "a document nested deeper than 100 levels cannot be stored" ||
		err.Error() != `store: svc.things: document "deep": INVALID_ARGUMENT: a document nested deeper than 100 levels cannot be stored` {
		t.Fatalf("a document nested 250 levels deep: %v, want the refusal (the request's fault)", err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "deep-ok"}, bson.M{"$set": bson.M{"w": nested(boltstore.MaxDepth)}}); err == nil {
		t.Fatal("an update nesting a document past the limit was accepted")
	}
	if err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": "deep-tx", "v": nested(250)})
		return err
	}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("a transaction writing a document nested 250 levels deep: %v, want the refusal", err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "r", "a": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "r"}, bson.M{"$rename": bson.M{"a": "b\x00c"}}); apperr.CodeOf(err) != apperr.InvalidArgument ||
		err.Error() != `store: svc.things: document "r": INVALID_ARGUMENT: a field name cannot hold a null byte ("b\x00c")` {
		t.Fatalf("$rename to a name with a null byte: %v, want the refusal (the request's fault)", err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "after"}); err != nil {
		t.Fatalf("a write after the refusals: %v", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("not ready after a refused commit: %v", err)
	}
	db.Close(ctx)

	db = openDir(t, dir)
	defer db.Close(ctx)
	var ids []string
	cur, err := db.Collection("things").Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		ids = append(ids, d["_id"].(string))
	}
	if strings.Join(ids, ",") != "deep-ok,r,after" {
		t.Fatalf("after the restart: %v", ids)
	}
}
