package ops

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
)

// TestUnreachableDatabaseIsUnavailable: an operation whose database does not
// answer (no server, a network error, a timeout) answers UNAVAILABLE, so a
// caller waits and tries again (the payouts consumer never dead-letters a
// delivery for it), while any other untyped error stays INTERNAL.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	ctx := context.Background()
	client, err := mongo.Connect(ctx, options.Client().ApplyURI("mongodb://127.0.0.1:1/?connectTimeoutMS=200").SetServerSelectionTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	read := func(ctx context.Context, _ *NoArgs) (string, error) {
		return "", client.Database("x").Collection("y").FindOne(ctx, bson.D{}).Err()
	}
	bug := func(context.Context, *NoArgs) (string, error) { return "", errors.New("nil map") }
	r := NewRegistry("t", NewQuery("t.ops.read", Public, "", read), NewQuery("t.ops.bug", Public, "", bug))
	r.Unreachable = store.IsUnreachable // as libs/service sets it
	_, err = r.Invoke(ctx, Query, "t.ops.read", []byte(`{}`), false)
	if apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("database unreachable: %v, want UNAVAILABLE", err)
	}
	_, err = r.Invoke(ctx, Query, "t.ops.bug", []byte(`{}`), false)
	if apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("a bug: %v, want INTERNAL", err)
	}
}
