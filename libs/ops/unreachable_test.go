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
	r.WithUnreachable(store.IsUnreachable) // as libs/service sets it
	_, err = r.Invoke(ctx, Query, "t.ops.read", []byte(`{}`), false)
	if apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("database unreachable: %v, want UNAVAILABLE", err)
	}
	_, err = r.Invoke(ctx, Query, "t.ops.bug", []byte(`{}`), false)
	if apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("a bug: %v, want INTERNAL", err)
	}
}

// TestUnreachableIsDefinedOutsideService: a Registry used outside
// service.Run (no WithUnreachable) takes no error for an unreachable
// database, and does not fail on one: every untyped error answers INTERNAL.
// With a classifier, only the untyped errors it accepts answer UNAVAILABLE
// (still wrapping the cause); an error that already has a code keeps it.
func TestUnreachableIsDefinedOutsideService(t *testing.T) {
	ctx := context.Background()
	down := errors.New("no server answered")
	fail := func(err error) func(context.Context, *NoArgs) (string, error) {
		return func(context.Context, *NoArgs) (string, error) { return "", err }
	}
	build := func() *Registry {
		return NewRegistry("t", NewQuery("t.ops.down", Public, "", fail(down)),
			NewQuery("t.ops.bug", Public, "", fail(errors.New("nil map"))),
			NewQuery("t.ops.missing", Public, "", fail(apperr.Wrap(down, apperr.NotFound, "no such thing"))))
	}
	call := func(r *Registry, path string) error {
		_, err := r.Invoke(ctx, Query, path, []byte(`{}`), false)
		return err
	}
	r := build()
	for path, want := range map[string]apperr.Code{"t.ops.down": apperr.Internal, "t.ops.bug": apperr.Internal, "t.ops.missing": apperr.NotFound} {
		if err := call(r, path); apperr.CodeOf(err) != want {
			t.Errorf("without WithUnreachable, %s: %v, want %s", path, err, want)
		}
	}
	r = build().WithUnreachable(func(err error) bool { return errors.Is(err, down) })
	for path, want := range map[string]apperr.Code{"t.ops.down": apperr.Unavailable, "t.ops.bug": apperr.Internal, "t.ops.missing": apperr.NotFound} {
		err := call(r, path)
		if apperr.CodeOf(err) != want {
			t.Errorf("with WithUnreachable, %s: %v, want %s", path, err, want)
		}
		if want == apperr.Unavailable && !errors.Is(err, down) {
			t.Errorf("%s: %v does not wrap its cause", path, err)
		}
	}
}
