package e2e

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
)

func TestGatewayHealthCORSAndRouting(t *testing.T) {
	s := st.Start(t)

	h := s.Do("GET", "/health", nil, nil)
	if h.Status != 200 || string(h.Body) != "Backend is healthy" || !strings.HasPrefix(h.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("health: %d %q %s", h.Status, h.Body, h.Header.Get("Content-Type"))
	}
	for _, r := range []st.Result{
		h,
		s.Query("", "catalog.locations.listCities", nil),
		s.Query("", "no.such.operation", nil),
		s.Do("OPTIONS", "/api/mutation", nil, map[string]string{"Access-Control-Request-Method": "POST"}),
		s.Do("OPTIONS", "/anything/at/all", nil, nil),
		s.Do("GET", "/nope", nil, nil),
	} {
		if r.Header.Get("Access-Control-Allow-Origin") != "*" ||
			r.Header.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" ||
			r.Header.Get("Access-Control-Allow-Headers") != "Content-Type, Authorization, processor-signature, Idempotency-Key, Convex-Client" {
			t.Errorf("CORS headers missing on %d %s: %v", r.Status, r.Body, r.Header)
		}
	}
	if r := s.Do("OPTIONS", "/api/query", nil, nil); r.Status != 204 {
		t.Errorf("preflight answered %d", r.Status)
	}

	if r := st.MustOK(t, s.Query("", "catalog.locations.listCities", nil)); string(r.Body) != "[]" {
		t.Fatalf("empty city list: %s", r.Body)
	}
	st.Expect(t, s.Query("", "no.such.operation", nil), "NOT_FOUND")
	st.Expect(t, s.Mutation("", "catalog.locations.listCities", nil), "INVALID_ARGUMENT")                                                               // query through /api/mutation
	st.Expect(t, s.Query(s.Token("a", "admin"), "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"}), "INVALID_ARGUMENT") // mutation through /api/query
	st.Expect(t, s.Mutation(s.Token("a", "admin"), "catalog.categories.ensureByName", map[string]any{"names": []string{"x"}}), "NOT_FOUND")             // internal
	st.Expect(t, s.Query("garbage-token", "catalog.locations.listCities", nil), "UNAUTHENTICATED")
	st.Expect(t, s.Do("POST", "/api/query", strings.NewReader("{not json"), nil), "INVALID_ARGUMENT")
}

// TestProcessorRoutesWithoutPayments: with the payments service unreachable
// (it answered the gateway once, so its declared routes are known and kept),
// the processor's routes answer 503 in the webhook's { error, retryAfter }
// shape. A system that never ran payments does not know its routes: 404.
func TestProcessorRoutesWithoutPayments(t *testing.T) {
	var down atomic.Bool
	s := st.Start(t, st.WithGatewayResolver(func(r ops.Resolver) ops.Resolver {
		return resolverFunc(func(ctx context.Context, svc string) (string, error) {
			if svc == "payments" && down.Load() {
				return "", errors.New("payments is down")
			}
			return r.Resolve(ctx, svc)
		})
	}))
	st.MustOK(t, s.Do("GET", "/processor/config", nil, nil))
	down.Store(true)
	for _, r := range []st.Result{
		s.Do("POST", "/processor/webhook", strings.NewReader("{}"), nil),
		s.Do("GET", "/processor/config", nil, nil),
	} {
		if r.Status != 503 || r.Map(t)["retryAfter"] == nil || r.Map(t)["error"] == nil || r.Header.Get("Retry-After") == "" ||
			r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("processor route without payments: %d %s", r.Status, r.Body)
		}
	}

	never := st.Start(t, st.WithModules(withoutModule("payments")...))
	st.Expect(t, never.Do("POST", "/processor/webhook", strings.NewReader("{}"), nil), "NOT_FOUND")
	st.Expect(t, never.Do("GET", "/processor/config", nil, nil), "NOT_FOUND")
}

type resolverFunc func(ctx context.Context, svc string) (string, error)

func (f resolverFunc) Resolve(ctx context.Context, svc string) (string, error) { return f(ctx, svc) }
