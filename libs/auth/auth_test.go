package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"marketplace/libs/apperr"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

func TestHS256RoundTripAndRejections(t *testing.T) {
	ctx := context.Background()
	o := Options{Issuer: "dev", Audience: "marketplace"}
	v, err := NewHS256(secret, o)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := Mint(secret, "user-1", []string{"admin"}, time.Hour, o)
	id, err := v.Verify(ctx, tok)
	if err != nil || id.Sub != "user-1" || !id.IsAdmin() {
		t.Fatalf("verify: %+v %v", id, err)
	}
	// Each refusal names its reason (details.reason) and says it in the message.
	type refused struct{ tok, reason, says string }
	bad := map[string]*refused{
		"expired": {reason: "expired", says: "expired"}, "other secret": {reason: "bad_signature", says: "make token"},
		"wrong issuer": {reason: "wrong_issuer", says: "issuer"}, "wrong audience": {reason: "wrong_audience", says: "audience"},
		"no subject": {reason: "no_subject", says: "subject"}, "alg none": {reason: "bad_signature", says: "signature"},
		"garbage": {reason: "malformed", says: "malformed"}, "not yet valid": {reason: "not_yet_valid", says: "not valid yet"},
		"issued in the future": {reason: "not_yet_valid", says: "iat"},
		"no expiry":            {reason: "missing_claim", says: "exp"},
	}
	bad["expired"].tok, _ = Mint(secret, "u", nil, -time.Hour, o)
	bad["other secret"].tok, _ = Mint([]byte("ffffffffffffffffffffffffffffffff"), "u", nil, time.Hour, o)
	bad["wrong issuer"].tok, _ = Mint(secret, "u", nil, time.Hour, Options{Issuer: "evil", Audience: "marketplace"})
	bad["wrong audience"].tok, _ = Mint(secret, "u", nil, time.Hour, Options{Issuer: "dev", Audience: "other"})
	bad["no subject"].tok, _ = Mint(secret, "", nil, time.Hour, o)
	none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "u", "exp": time.Now().Add(time.Hour).Unix(), "iss": "dev", "aud": "marketplace"})
	bad["alg none"].tok, _ = none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	bad["garbage"].tok = "not.a.token"
	sign := func(c jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bad["not yet valid"].tok = sign(jwt.MapClaims{"sub": "u", "iss": "dev", "aud": "marketplace", "exp": time.Now().Add(2 * time.Hour).Unix(), "nbf": time.Now().Add(time.Hour).Unix()})
	// Issued beyond the clock leeway (30 s) in the future: refused like a future nbf.
	bad["issued in the future"].tok = sign(jwt.MapClaims{"sub": "u", "iss": "dev", "aud": "marketplace", "exp": time.Now().Add(2 * time.Hour).Unix(), "iat": time.Now().Add(5 * time.Minute).Unix()})
	bad["no expiry"].tok = sign(jwt.MapClaims{"sub": "u", "iss": "dev", "aud": "marketplace"})
	for name, b := range bad {
		_, err := v.Verify(ctx, b.tok)
		e := apperr.From(err)
		if !apperr.Is(err, apperr.Unauthenticated) || e.Details["reason"] != b.reason || !strings.Contains(e.Message, b.says) {
			t.Errorf("%s: got %v %v, want UNAUTHENTICATED with reason %s saying %q", name, err, e.Details, b.reason, b.says)
		}
	}
	// Within the leeway a clock a little ahead of ours is forgiven.
	ahead := sign(jwt.MapClaims{"sub": "u", "iss": "dev", "aud": "marketplace", "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Add(10 * time.Second).Unix()})
	if _, err := v.Verify(ctx, ahead); err != nil {
		t.Errorf("iat 10 s ahead (inside the leeway) refused: %v", err)
	}
	if _, err := NewHS256([]byte("short"), o); err == nil {
		t.Fatal("short secret accepted")
	}
	if (&Identity{Sub: "x"}).IsAdmin() {
		t.Fatal("no roles is admin")
	}
}

func TestJWKSVerifiesES256AndPinsAlgorithms(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	b64 := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.FillBytes(make([]byte, 32))) }
	jwks := map[string]any{"keys": []map[string]any{{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig", "x": b64(key.X), "y": b64(key.Y)}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = json.NewEncoder(w).Encode(jwks) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Issuer: "https://idp", Audience: "marketplace"}
	v, err := NewJWKS(ctx, srv.URL, o)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(m jwt.SigningMethod, k any) string {
		tk := jwt.NewWithClaims(m, jwt.MapClaims{"sub": "u-9", "roles": []string{"admin"}, "iss": "https://idp", "aud": "marketplace", "exp": time.Now().Add(time.Hour).Unix()})
		tk.Header["kid"] = "k1"
		s, err := tk.SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	id, err := v.Verify(ctx, mk(jwt.SigningMethodES256, key))
	if err != nil || id.Sub != "u-9" || !id.IsAdmin() {
		t.Fatalf("es256: %+v %v", id, err)
	}
	// An HS256 token keyed with public material must never pass a JWKS verifier.
	if _, err := v.Verify(ctx, mk(jwt.SigningMethodHS256, secret)); !apperr.Is(err, apperr.Unauthenticated) {
		t.Fatalf("hs256 accepted by jwks verifier: %v", err)
	}
}

func TestBearerToken(t *testing.T) {
	if _, ok, err := BearerToken(""); ok || err != nil {
		t.Fatal("absent header")
	}
	if tok, ok, err := BearerToken("Bearer abc"); !ok || err != nil || tok != "abc" {
		t.Fatal("bearer")
	}
	for _, h := range []string{"Basic abc", "Bearer", "Bearer   ", "abc"} {
		if _, _, err := BearerToken(h); !apperr.Is(err, apperr.Unauthenticated) {
			t.Errorf("%q accepted", h)
		}
	}
	ctx := WithIdentity(context.Background(), &Identity{Sub: "s"})
	if FromContext(ctx).Sub != "s" || FromContext(context.Background()) != nil {
		t.Fatal("context")
	}
}

type countingVerifier struct {
	n  int
	id *Identity
}

func (c *countingVerifier) Verify(_ context.Context, tok string) (*Identity, error) {
	c.n++
	if tok == "bad" {
		return nil, apperr.New(apperr.Unauthenticated, "bad")
	}
	return c.id, nil
}

func TestCachedVerifierHonoursExpiryAndNeverCachesFailures(t *testing.T) {
	ctx := context.Background()
	inner := &countingVerifier{id: &Identity{Sub: "u", Expires: time.Now().Add(time.Hour)}}
	v := Cached(inner, 2, time.Minute)
	for i := 0; i < 3; i++ {
		if id, err := v.Verify(ctx, "t1"); err != nil || id.Sub != "u" {
			t.Fatal(err)
		}
	}
	if inner.n != 1 {
		t.Fatalf("verified %d times, want 1", inner.n)
	}
	for i := 0; i < 2; i++ {
		if _, err := v.Verify(ctx, "bad"); err == nil {
			t.Fatal("bad token accepted")
		}
	}
	if inner.n != 3 {
		t.Fatalf("failure was cached: %d calls", inner.n)
	}
	// A token about to expire is only cached until it expires.
	inner.id = &Identity{Sub: "soon", Expires: time.Now().Add(30 * time.Millisecond)}
	v.Verify(ctx, "t2")
	time.Sleep(40 * time.Millisecond)
	v.Verify(ctx, "t2")
	if inner.n != 5 {
		t.Fatalf("expired entry served from cache: %d calls", inner.n)
	}
	// Size bound: a third distinct token clears the map rather than growing it.
	v.Verify(ctx, "t3")
	if c := v.(*cached); len(c.m) > 2 {
		t.Fatalf("cache grew to %d", len(c.m))
	}
}
