package ops

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/golang-jwt/jwt/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"marketplace/libs/apperr"
	"marketplace/libs/logtest"
	"marketplace/libs/serviceauth"
)

// testPeers are services with keys of their own, and a callee that knows
// their public keys.
type testPeers struct {
	t        testing.TB
	keys     map[string]ed25519.PrivateKey
	stranger ed25519.PrivateKey // a key no service has
	verifier *serviceauth.Verifier
}

func newTestPeers(t testing.TB, callee string, services ...string) *testPeers {
	t.Helper()
	priv, pub, err := serviceauth.Pairs(services)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := serviceauth.GenerateKey()
	return &testPeers{t: t, keys: priv, stranger: stranger, verifier: serviceauth.NewVerifier(callee, pub, nil)}
}

func (p *testPeers) signer(service string) *serviceauth.Signer {
	return serviceauth.NewSigner(service, p.keys[service], nil)
}

// assertion is from's assertion for a call to to.
func (p *testPeers) assertion(from, to string) string {
	p.t.Helper()
	a, err := p.signer(from).Assertion(to)
	if err != nil {
		p.t.Fatal(err)
	}
	return a
}

// sign signs claims from..to issued at iat, living life, with key.
func (p *testPeers) sign(key ed25519.PrivateKey, from, to string, iat time.Time, life time.Duration) string {
	p.t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer: from, Audience: jwt.ClaimStrings{to}, IssuedAt: jwt.NewNumericDate(iat), ExpiresAt: jwt.NewNumericDate(iat.Add(life)),
	}).SignedString(key)
	if err != nil {
		p.t.Fatal(err)
	}
	return tok
}

// forged claims to come from from, signed with a key that is not its own.
func (p *testPeers) forged(from, to string) string {
	return p.sign(p.stranger, from, to, time.Now(), serviceauth.Lifetime)
}

// refusedCalls sums refusedCallsMetric by caller, operation and reason.
func refusedCalls(t *testing.T, reader sdkmetric.Reader) map[[4]string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[[4]string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != refusedCallsMetric {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				get := func(k string) string { v, _ := dp.Attributes.Value(attribute.Key(k)); return v.AsString() }
				out[[4]string{get("service"), get("caller"), get("operation"), get("reason")}] += dp.Value
			}
		}
	}
	return out
}

// TestInternalCallsNeedADeclaredCaller: an internal operation answers only a
// call whose assertion verifies and names a declared caller. An undeclared
// service with a valid assertion, a forged, expired or misaddressed
// assertion, and a callee without keys all get the outsider's answer
// (NOT_FOUND, an unknown operation), logged at warn with caller, callee,
// operation and reason, and counted; a call without any assertion gets it
// silently. Public operations serve every caller alike.
func TestInternalCallsNeedADeclaredCaller(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	peers := newTestPeers(t, "t", "payouts", "notifications")
	var logs logtest.Buffer
	app := fiber.New()
	(&Server{Registry: testRegistry(), Peers: peers.verifier, Callers: []string{"payouts"}, Logger: slog.New(slog.NewJSONHandler(&logs, nil))}).Mount(app)
	keyless := fiber.New()
	(&Server{Registry: testRegistry(), Logger: slog.New(slog.NewJSONHandler(&logs, nil))}).Mount(keyless)

	call := func(app *fiber.App, kind, path, assertion string) (int, string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/api/"+kind, strings.NewReader(`{"path":"`+path+`"}`))
		req.Header.Set("Content-Type", "application/json")
		if assertion != "" {
			req.Header.Set(serviceauth.Header, assertion)
		}
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := call(app, "mutation", "t.ops.internal", peers.assertion("payouts", "t")); st != 200 || body != `"anonymous"` {
		t.Fatalf("the declared caller: %d %s", st, body)
	}
	if strings.Contains(logs.String(), "refused") {
		t.Fatalf("a declared call was logged: %s", logs.String())
	}

	now := time.Now()
	refused := []struct {
		name, assertion, caller, reason string
		app                             *fiber.App
	}{
		{"an undeclared caller", peers.assertion("notifications", "t"), "notifications", RefusedUndeclaredCaller, app},
		{"forged", peers.forged("payouts", "t"), "unverified", serviceauth.ReasonBadSignature, app},
		{"expired", peers.sign(peers.keys["payouts"], "payouts", "t", now.Add(-10*time.Minute), serviceauth.Lifetime), "unverified", serviceauth.ReasonExpired, app},
		{"for another service", peers.assertion("payouts", "catalog"), "unverified", serviceauth.ReasonWrongAudience, app},
		{"issued in the future", peers.sign(peers.keys["payouts"], "payouts", "t", now.Add(5*time.Minute), serviceauth.Lifetime), "unverified", serviceauth.ReasonNotYetValid, app},
		{"junk", "junk", "unverified", serviceauth.ReasonMalformed, app},
		{"a callee without keys", peers.assertion("payouts", "t"), "unverified", RefusedNoKeys, keyless},
	}
	for _, c := range refused {
		st, body := call(c.app, "mutation", "t.ops.internal", c.assertion)
		if st != 404 || !strings.Contains(body, `"reason":"unknown_operation"`) {
			t.Errorf("%s: %d %s", c.name, st, body)
		}
	}
	// Without an assertion: the outsider's answer, nothing logged.
	if st, _ := call(app, "mutation", "t.ops.internal", ""); st != 404 {
		t.Errorf("no assertion: %d", st)
	}
	// A public operation serves an undeclared or forged caller as anyone.
	for _, a := range []string{peers.assertion("notifications", "t"), "junk"} {
		if st, body := call(app, "query", "t.ops.public", a); st != 200 || body != `"anonymous"` {
			t.Errorf("public operation: %d %s", st, body)
		}
	}

	recs := logs.Records(t)
	if len(recs) != len(refused) {
		t.Fatalf("%d log lines for %d refusals: %s", len(recs), len(refused), logs.String())
	}
	for i, c := range refused {
		r := recs[i]
		if r["level"] != "WARN" || r["msg"] != "internal call refused" || r["callee"] != "t" || r["caller"] != c.caller ||
			r["operation"] != "t.ops.internal" || r["reason"] != c.reason {
			t.Errorf("%s: log %v", c.name, r)
		}
	}
	counts := refusedCalls(t, reader)
	for _, c := range refused {
		if n := counts[[4]string{"t", c.caller, "t.ops.internal", c.reason}]; n < 1 {
			t.Errorf("%s: not counted (%v)", c.name, counts)
		}
	}
	if len(counts) != len(refused) {
		t.Errorf("series %v", counts)
	}

	// Through the client: an undeclared caller's call is its own bug, INTERNAL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.Shutdown()
	res := staticResolver{"t": "http://" + ln.Addr().String()}
	var s string
	if err := NewClient(res, peers.signer("notifications"), 2*time.Second).Mutation(context.Background(), "t", "t.ops.internal", nil, &s); apperr.CodeOf(err) != apperr.Internal ||
		errors.Unwrap(err) == nil || !strings.Contains(errors.Unwrap(err).Error(), "t refused operation t.ops.internal") {
		t.Fatalf("an undeclared caller through the client: %v", err)
	}
	if err := NewClient(res, peers.signer("payouts"), 2*time.Second).Mutation(context.Background(), "t", "t.ops.internal", nil, &s); err != nil {
		t.Fatalf("the declared caller through the client: %v", err)
	}
}
