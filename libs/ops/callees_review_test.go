package ops

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/version"
)

// TestUnknownArgumentOfAnInnerCallIsNotRetriedByTheOuterCaller: a mutation
// that ran, then failed on its own call to an older callee that refused an
// argument (the refusal standing after the one retry, as in a rolling
// deploy), must not answer its caller with the unknown-argument refusal the
// callee sent: the caller would take it for a refusal of its own argument,
// made before the mutation ran, and send the mutation once more. The inner
// refusal is the calling service's version skew: UNAVAILABLE naming it.
func TestUnknownArgumentOfAnInnerCallIsNotRetriedByTheOuterCaller(t *testing.T) {
	// inner: an older callee that refuses extra and more (strict decoding),
	// while its declarations (a newer instance's) list them.
	inner := currentCallee(t, version.Contracts{Internal: "1.0.0"})
	newer := NewRegistry("shop", NewQuery("t.items.get", Internal, "", func(context.Context, *newerArgs) (string, error) { return "", nil }))
	inner.declare = newer.Describe
	toInner := callerOf(map[string]string{"shop": inner.url})

	// middle: a mutation with an effect before its call to inner.
	var ran atomic.Int32
	middle := startCallee(t, NewRegistry("orders",
		NewMutation("t.orders.place", Internal, "", func(ctx context.Context, a *newerArgs) (string, error) {
			ran.Add(1)
			extra, more := "x", 2
			if err := toInner.Query(ctx, "shop", "t.items.get", newerArgs{Name: a.Name, Extra: &extra, More: &more}, nil); err != nil {
				return "", err // as handlers do: the callee's error is the answer
			}
			return "placed", nil
		})), version.Contracts{Internal: "1.1.0"})

	outer := callerOf(map[string]string{"orders": middle.url})
	more := 1
	err := outer.Mutation(context.Background(), "orders", "t.orders.place", newerArgs{Name: "a", More: &more}, nil)
	if n := ran.Load(); n != 1 {
		t.Fatalf("the mutation ran %d times (err %v): an inner call's unknown argument was taken for the outer call's", n, err)
	}
	e := apperr.From(err)
	if e.Code != apperr.Unavailable || e.Details["reason"] != ReasonContractVersionUnsupported || strings.Contains(e.Message, "unknown argument") && e.Code == apperr.InvalidArgument {
		t.Fatalf("got %v %v, want UNAVAILABLE contract_version_unsupported", err, e.Details)
	}
	if e.Details["field"] != nil {
		t.Fatalf("the answer names a field %v: a caller could take it for its own argument", e.Details["field"])
	}
}
