package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"marketplace/libs/apperr"
)

func gatewayKeys(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// The gateway's tokens carry the verified identity and verify with its public
// key only; a token of the same shape signed otherwise, or meant for another
// audience or issuer, or expired, is refused.
func TestGatewayTokens(t *testing.T) {
	pub, priv := gatewayKeys(t)
	is := NewIssuer(priv)
	v, err := NewGatewayVerifier(pub)
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	id := &Identity{Sub: "admin-1", Roles: []string{"admin"}, Expires: exp}
	tok, err := is.Token(id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.Verify(context.Background(), tok)
	if err != nil || got.Sub != "admin-1" || !got.IsAdmin() || !got.Expires.Equal(exp) {
		t.Fatalf("verified %+v %v", got, err)
	}
	// One token per identity and expiry, reused; another expiry, another token.
	if again, _ := is.Token(&Identity{Sub: "admin-1", Roles: []string{"admin"}, Expires: exp}); again != tok {
		t.Error("the same identity was signed again")
	}
	if other, _ := is.Token(&Identity{Sub: "admin-1", Roles: []string{"admin"}, Expires: exp.Add(time.Second)}); other == tok {
		t.Error("another expiry got the same token")
	}
	if other, _ := is.Token(&Identity{Sub: "admin-1", Expires: exp}); other == tok {
		t.Error("other roles got the same token")
	}

	_, otherKey := gatewayKeys(t)
	forged, _ := NewIssuer(otherKey).Token(id)
	sign := func(c jwt.Claims) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	claims := func(iss, aud string, exp time.Time) jwt.Claims {
		return jwt.RegisteredClaims{Subject: "admin-1", Issuer: iss, Audience: jwt.ClaimStrings{aud}, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp)}
	}
	hs, _ := Mint([]byte("0123456789abcdef0123456789abcdef"), "admin-1", []string{"admin"}, time.Hour, Options{})
	for name, bad := range map[string]string{
		"another key":      forged,
		"another issuer":   sign(claims("someone", GatewayAudience, now.Add(time.Hour))),
		"another audience": sign(claims(GatewayIssuer, "elsewhere", now.Add(time.Hour))),
		"expired":          sign(claims(GatewayIssuer, GatewayAudience, now.Add(-time.Hour))),
		"a user's HS256":   hs,
	} {
		if _, err := v.Verify(context.Background(), bad); apperr.CodeOf(err) != apperr.Unauthenticated {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewGatewayVerifier(pub[:10]); err == nil {
		t.Error("a short public key was taken")
	}
}

// Either sends the gateway's tokens (EdDSA) to the gateway's verifier and
// every other token to the other one.
func TestEither(t *testing.T) {
	pub, priv := gatewayKeys(t)
	gv, _ := NewGatewayVerifier(pub)
	secret := []byte("0123456789abcdef0123456789abcdef")
	dev, _ := NewHS256(secret, Options{})
	v := Either(gv, dev)
	gwTok, _ := NewIssuer(priv).Token(&Identity{Sub: "via-gateway", Expires: time.Now().Add(time.Hour)})
	devTok, _ := Mint(secret, "direct", nil, time.Hour, Options{})
	for tok, want := range map[string]string{gwTok: "via-gateway", devTok: "direct"} {
		if id, err := v.Verify(context.Background(), tok); err != nil || id.Sub != want {
			t.Errorf("%s: %+v %v", want, id, err)
		}
	}
	if _, err := v.Verify(context.Background(), "not.a.token"); apperr.CodeOf(err) != apperr.Unauthenticated {
		t.Errorf("garbage: %v", err)
	}
	if Either(gv, nil) != gv {
		t.Error("Either without another verifier is not the gateway's")
	}
}

// The token's name claim reaches the services through the gateway's token,
// cleaned; a token without one names no one, and another name is another
// gateway token.
func TestNameClaimCarriedThroughTheGateway(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	user, err := NewHS256(secret, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pub, priv := gatewayKeys(t)
	is := NewIssuer(priv)
	gw, _ := NewGatewayVerifier(pub)
	for _, c := range []struct{ claim, want string }{
		{"Mariam Al Mansoori", "Mariam Al Mansoori"},
		{"  مريم المنصوري  ", "مريم المنصوري"},
		{"Eve\u202e\u0000 Admin\n", "Eve Admin"},
		{"", ""},
	} {
		tok, err := MintNamed(secret, "admin-1", c.claim, []string{"admin"}, time.Hour, Options{})
		if err != nil {
			t.Fatal(err)
		}
		id, err := user.Verify(context.Background(), tok)
		if err != nil || id.Name != c.want {
			t.Fatalf("name claim %q: verified %+v %v, want name %q", c.claim, id, err, c.want)
		}
		gtok, _ := is.Token(id)
		got, err := gw.Verify(context.Background(), gtok)
		if err != nil || got.Name != c.want {
			t.Fatalf("name claim %q through the gateway: %+v %v, want %q", c.claim, got, err, c.want)
		}
	}
	exp := time.Now().Add(time.Hour)
	a, _ := is.Token(&Identity{Sub: "admin-1", Name: "A", Expires: exp})
	b, _ := is.Token(&Identity{Sub: "admin-1", Name: "B", Expires: exp})
	if a == b {
		t.Error("another name got the same gateway token")
	}
	if long := CleanName(strings.Repeat("ن", 300)); utf8.RuneCountInString(long) != MaxNameLength {
		t.Errorf("a 300-character name kept %d characters, want %d", utf8.RuneCountInString(long), MaxNameLength)
	}
}
