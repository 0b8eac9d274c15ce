package apperr

import (
	"errors"
	"fmt"
	"testing"
)

func TestStatusesFollowTheContract(t *testing.T) {
	want := map[Code]int{
		InvalidArgument: 400, Unauthenticated: 401, PermissionDenied: 403, NotFound: 404,
		AlreadyExists: 409, FailedPrecondition: 409, RateLimited: 429, Unavailable: 503, Internal: 500,
		Code("BOGUS"): 500,
	}
	for c, s := range want {
		if got := c.Status(); got != s {
			t.Errorf("%s: status %d, want %d", c, got, s)
		}
	}
}

func TestBodyHidesUntypedErrorsAndRoundTrips(t *testing.T) {
	st, b := Body(errors.New("secret database detail"))
	if st != 500 || string(b) != `{"error":{"code":"INTERNAL","message":"internal error"}}` {
		t.Fatalf("untyped error rendered as %d %s", st, b)
	}
	wrapped := fmt.Errorf("ctx: %w", Invalid("rating", "must be between %d and %d", 1, 5))
	st, b = Body(wrapped)
	if st != 400 {
		t.Fatalf("status %d", st)
	}
	e, ok := Parse(st, b)
	if !ok || e.Code != InvalidArgument || e.Message != "rating: must be between 1 and 5" || e.Details["field"] != "rating" {
		t.Fatalf("parsed %+v ok=%v from %s", e, ok, b)
	}
	if _, ok := Parse(200, []byte(`{"x":1}`)); ok {
		t.Fatal("non-error body parsed as error")
	}
	if !Is(wrapped, InvalidArgument) || Is(wrapped, NotFound) || CodeOf(wrapped) != InvalidArgument {
		t.Fatal("Is/CodeOf broken")
	}
}

// labelled is an error as the MongoDB driver and the embedded engine give a
// write conflict: it carries error labels.
type labelled struct{ labels []string }

func (l labelled) Error() string { return "write conflict" }
func (l labelled) HasErrorLabel(label string) bool {
	for _, x := range l.labels {
		if x == label {
			return true
		}
	}
	return false
}

// TestTransientTransactionErrorIsContention: a conflict that outlasted its
// retries, wrapped or not, is UNAVAILABLE with reason contention; an error
// with other labels stays INTERNAL.
func TestTransientTransactionErrorIsContention(t *testing.T) {
	conflict := labelled{[]string{"TransientTransactionError"}}
	for _, err := range []error{conflict, fmt.Errorf("commit: %w", conflict)} {
		e := From(err)
		if e.Code != Unavailable || e.Details["reason"] != "contention" {
			t.Fatalf("%v: %+v", err, e)
		}
	}
	if e := From(labelled{[]string{"RetryableWriteError"}}); e.Code != Internal {
		t.Fatalf("other label: %+v", e)
	}
}
