package serviceauth

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func mustKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// A clock tests move.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// A declared caller's assertion verifies and names it; forged, expired,
// future, misaddressed and otherwise wrong ones are refused with their reason.
func TestAssertions(t *testing.T) {
	payouts, notifications, stranger := mustKey(t), mustKey(t), mustKey(t)
	keys := map[string]ed25519.PublicKey{"payouts": pub(payouts), "notifications": pub(notifications)}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	v := NewVerifier("catalog", keys, clk.now)

	s := NewSigner("payouts", payouts, clk.now)
	tok, err := s.Assertion("catalog")
	if err != nil {
		t.Fatal(err)
	}
	if caller, err := v.Verify(tok); err != nil || caller != "payouts" {
		t.Fatalf("a good assertion: %q %v", caller, err)
	}
	// Its header says EdDSA; its claims are iss, aud, iat, exp and nothing else.
	parts := strings.Split(tok, ".")
	hdr, _ := base64.RawURLEncoding.DecodeString(parts[0])
	body, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if !strings.Contains(string(hdr), `"alg":"EdDSA"`) || string(body) != `{"iss":"payouts","aud":["catalog"],"exp":1772366700,"iat":1772366400}` {
		t.Fatalf("assertion %s %s", hdr, body)
	}

	sign := func(k ed25519.PrivateKey, c jwt.RegisteredClaims) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	now := clk.t
	claims := func(iss string, aud ...string) jwt.RegisteredClaims {
		return jwt.RegisteredClaims{Issuer: iss, Audience: aud, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(Lifetime))}
	}
	expired := claims("payouts", "catalog")
	expired.IssuedAt, expired.ExpiresAt = jwt.NewNumericDate(now.Add(-6*time.Minute)), jwt.NewNumericDate(now.Add(-time.Minute))
	future := claims("payouts", "catalog")
	future.IssuedAt, future.ExpiresAt = jwt.NewNumericDate(now.Add(2*time.Minute)), jwt.NewNumericDate(now.Add(7*time.Minute))
	noIat := claims("payouts", "catalog")
	noIat.IssuedAt = nil
	noExp := claims("payouts", "catalog")
	noExp.ExpiresAt = nil
	long := claims("payouts", "catalog")
	long.ExpiresAt = jwt.NewNumericDate(now.Add(time.Hour))
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims("payouts", "catalog")).SignedString([]byte("0123456789abcdef0123456789abcdef"))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims("payouts", "catalog")).SignedString(jwt.UnsafeAllowNoneSignatureType)
	good := sign(payouts, claims("payouts", "catalog"))
	tampered := strings.Split(good, ".")
	tampered[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"notifications","aud":["catalog"],"exp":1772366700,"iat":1772366400}`))

	for name, c := range map[string]struct{ tok, reason string }{
		"signed by another key":              {sign(stranger, claims("payouts", "catalog")), ReasonBadSignature},
		"another service's key":              {sign(notifications, claims("payouts", "catalog")), ReasonBadSignature},
		"claims changed after signing":       {strings.Join(tampered, "."), ReasonBadSignature},
		"HS256":                              {hs, ReasonBadSignature},
		"alg none":                           {none, ReasonBadSignature},
		"an unknown caller":                  {sign(stranger, claims("stranger", "catalog")), ReasonUnknownCaller},
		"no caller":                          {sign(payouts, claims("", "catalog")), ReasonUnknownCaller},
		"addressed to customers":             {sign(payouts, claims("payouts", "customers")), ReasonWrongAudience},
		"no audience":                        {sign(payouts, claims("payouts")), ReasonMissingClaim},
		"addressed to catalog and customers": {sign(payouts, claims("payouts", "catalog", "customers")), ReasonWrongAudience},
		"expired":                            {sign(payouts, expired), ReasonExpired},
		"issued in the future":               {sign(payouts, future), ReasonNotYetValid},
		"no iat":                             {sign(payouts, noIat), ReasonMissingClaim},
		"no exp":                             {sign(payouts, noExp), ReasonMissingClaim},
		"an hour long":                       {sign(payouts, long), ReasonTooLong},
		"not a JWT":                          {"junk", ReasonMalformed},
		"empty":                              {"", ReasonMalformed},
	} {
		caller, err := v.Verify(c.tok)
		var r *Refusal
		if err == nil || !errors.As(err, &r) || r.Reason != c.reason {
			t.Errorf("%s: got %q %v, want refused %s", name, caller, err, c.reason)
		}
	}

	// Within the leeway, a skewed clock is forgiven.
	skewed := claims("payouts", "catalog")
	skewed.IssuedAt = jwt.NewNumericDate(now.Add(20 * time.Second))
	if caller, err := v.Verify(sign(payouts, skewed)); err != nil || caller != "payouts" {
		t.Fatalf("20 s of skew: %q %v", caller, err)
	}

	// A remembered assertion stops working when it expires (and the leeway
	// is over).
	clk.t = now.Add(Lifetime + Leeway + time.Second)
	if _, err := v.Verify(tok); err == nil {
		t.Fatal("an expired remembered assertion was accepted")
	}
}

// The signer sends one assertion per audience until little of its life is
// left, then a new one.
func TestSignerRenews(t *testing.T) {
	k := mustKey(t)
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := NewSigner("payouts", k, clk.now)
	a1, _ := s.Assertion("catalog")
	b1, _ := s.Assertion("customers")
	if a1 == b1 {
		t.Fatal("one assertion for two audiences")
	}
	clk.t = clk.t.Add(Lifetime - RenewBefore - time.Second)
	if a2, _ := s.Assertion("catalog"); a2 != a1 {
		t.Fatal("renewed too early")
	}
	clk.t = clk.t.Add(2 * time.Second)
	a3, _ := s.Assertion("catalog")
	if a3 == a1 {
		t.Fatal("not renewed with less than RenewBefore left")
	}
	v := NewVerifier("catalog", map[string]ed25519.PublicKey{"payouts": pub(k)}, clk.now)
	if caller, err := v.Verify(a3); err != nil || caller != "payouts" {
		t.Fatalf("the renewed assertion: %q %v", caller, err)
	}
}

func TestKeysAndSettings(t *testing.T) {
	k := mustKey(t)
	got, err := ParsePrivateKey(EncodePrivateKey(k))
	if err != nil || !got.Equal(k) {
		t.Fatalf("round trip: %v", err)
	}
	std := base64.StdEncoding.EncodeToString(k.Seed())
	if got, err := ParsePrivateKey(" " + std + "\n"); err != nil || !got.Equal(k) {
		t.Fatalf("standard base64 with padding and spaces: %v", err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	if got, err := ParsePrivateKey(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))); err != nil || !got.Equal(k) {
		t.Fatalf("PEM: %v", err)
	}
	for name, s := range map[string]string{
		"not base64": "not a key!", "too short": base64.RawURLEncoding.EncodeToString([]byte("short")),
		"a PEM of another type": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})),
	} {
		if _, err := ParsePrivateKey(s); err == nil {
			t.Errorf("%s accepted", name)
		}
	}

	a, b := mustKey(t), mustKey(t)
	keys := map[string]ed25519.PublicKey{"catalog": pub(a), "payouts": pub(b)}
	line := FormatPublicKeys(keys)
	if !strings.HasPrefix(line, "catalog=") || !strings.Contains(line, ",payouts=") {
		t.Fatalf("format: %s", line)
	}
	parsed, err := ParsePublicKeys(strings.Split(line, ","))
	if err != nil || len(parsed) != 2 || !parsed["catalog"].Equal(pub(a)) || !parsed["payouts"].Equal(pub(b)) {
		t.Fatalf("parse: %v %v", parsed, err)
	}
	for name, entries := range map[string][]string{
		"no key": {"catalog="}, "no name": {"=" + EncodePublicKey(pub(a))}, "no =": {"catalog"},
		"short key": {"catalog=AAAA"}, "twice": {"catalog=" + EncodePublicKey(pub(a)), "catalog=" + EncodePublicKey(pub(b))},
	} {
		if _, err := ParsePublicKeys(entries); err == nil {
			t.Errorf("%s accepted", name)
		}
	}

	// Credentials that cannot work are refused at start.
	ok := Credentials{Key: b, Peers: keys, Callers: []string{"payouts"}}
	if err := ok.Check("payouts"); err != nil {
		t.Fatal(err)
	}
	if err := (Credentials{Peers: keys, Callers: []string{"reviews"}}).Check("catalog"); err == nil || !strings.Contains(err.Error(), "INTERNAL_CALLERS names reviews") {
		t.Errorf("a caller without a key: %v", err)
	}
	if err := (Credentials{Key: a, Peers: keys}).Check("payouts"); err == nil || !strings.Contains(err.Error(), "SERVICE_KEY is not the key") {
		t.Errorf("a private key that is not the published one: %v", err)
	}

	priv, pubs, err := Pairs([]string{"b", "a", "b"})
	if err != nil || len(priv) != 2 || len(pubs) != 2 || !pubs["a"].Equal(priv["a"].Public()) || priv["a"].Equal(priv["b"]) {
		t.Fatalf("pairs: %v", err)
	}
}
