package e2e

import (
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestOperationPathsKeepIdempotency: a mutation on its own path honours an
// Idempotency-Key as /api/mutation does, and the two forms are one call to
// the service: a repeat on either replays the kept answer
// (Idempotent-Replayed: true), other arguments with the key are refused.
func TestOperationPathsKeepIdempotency(t *testing.T) {
	s := st.Start(t)
	tok := s.Token("own-path-user")
	h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Idempotency-Key": "own-path-1"}
	first := st.MustOK(t, s.Do("POST", "/api/mutation/customers/profile/upsertMyProfile", strings.NewReader(`{"name":"Own Path"}`), h))
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("the first call was replayed")
	}
	again := st.MustOK(t, s.Do("POST", "/api/mutation/customers/profile/upsertMyProfile", strings.NewReader(`{"name":"Own Path"}`), h))
	byBody := st.MustOK(t, s.Do("POST", "/api/mutation", strings.NewReader(`{"path":"customers.profile.upsertMyProfile","args":{"name":"Own Path"}}`), h))
	for _, r := range []st.Result{again, byBody} {
		if r.Header.Get("Idempotent-Replayed") != "true" || string(r.Body) != string(first.Body) {
			t.Errorf("a repeat: replayed %q, %s (first %s)", r.Header.Get("Idempotent-Replayed"), r.Body, first.Body)
		}
	}
	other := s.Do("POST", "/api/mutation/customers/profile/upsertMyProfile", strings.NewReader(`{"name":"Someone Else"}`), h)
	if other.Status != 400 || other.Code() != "INVALID_ARGUMENT" || !strings.Contains(string(other.Body), "idempotency_key_reused") {
		t.Errorf("the key with other arguments: %d %s", other.Status, other.Body)
	}
}
