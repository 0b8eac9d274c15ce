package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The gateway vouches for the callers it verified. With the development
// secret, whoever holds the secret can mint any token (an administrator's
// too), so only the gateway holds it: it verifies the user's token and
// forwards the call with a token of its own, signed with its Ed25519 key
// (AUTH_GATEWAY_KEY), naming the same subject, roles, name and expiry. The services
// hold the gateway's public key only (AUTH_GATEWAY_PUBLIC_KEY): they verify
// what the gateway forwards, and a call a service makes on the user's behalf
// carries the same token on, but none of them can mint one.

// The claims that set the gateway's tokens apart from the users' tokens.
const (
	GatewayIssuer   = "marketplace-gateway"
	GatewayAudience = "marketplace-services"
)

// gatewayTokenLifetime bounds a gateway token whose user token has no expiry
// (never: exp is required; a guard).
const gatewayTokenLifetime = 5 * time.Minute

// NewGatewayVerifier accepts the tokens the gateway signed with the private
// key of pub (alg pinned to EdDSA, issuer and audience the gateway's).
func NewGatewayVerifier(pub ed25519.PublicKey) (Verifier, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("auth: the gateway's public key must be an Ed25519 key")
	}
	return newVerifier(func(*jwt.Token) (any, error) { return pub, nil }, []string{"EdDSA"},
		Options{Issuer: GatewayIssuer, Audience: GatewayAudience}), nil
}

// Issuer signs the gateway's tokens. It is safe for concurrent use.
type Issuer struct {
	key  ed25519.PrivateKey
	now  func() time.Time
	size int

	mu sync.Mutex
	m  map[[32]byte]issued // by subject, roles and expiry
}

type issued struct {
	token string
	exp   time.Time
}

// NewIssuer signs with key.
func NewIssuer(key ed25519.PrivateKey) *Issuer {
	return &Issuer{key: key, now: time.Now, size: 100_000, m: map[[32]byte]issued{}}
}

// Token is the gateway's token for id: its subject and roles, expiring when
// id's token does. One is signed per identity and expiry, then reused.
func (is *Issuer) Token(id *Identity) (string, error) {
	now := is.now()
	exp := id.Expires
	if exp.IsZero() {
		exp = now.Add(gatewayTokenLifetime)
	}
	key := identityKey(id, exp)
	is.mu.Lock()
	defer is.mu.Unlock()
	if t, ok := is.m[key]; ok && now.Before(t.exp) {
		return t.token, nil
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   id.Sub,
			Issuer:    GatewayIssuer,
			Audience:  jwt.ClaimStrings{GatewayAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
		Roles: id.Roles,
		Name:  id.Name,
	}).SignedString(is.key)
	if err != nil {
		return "", err
	}
	if len(is.m) >= is.size {
		clear(is.m)
	}
	is.m[key] = issued{token: tok, exp: exp}
	return tok, nil
}

func identityKey(id *Identity, exp time.Time) [32]byte {
	b, _ := json.Marshal(struct {
		Sub   string
		Roles []string
		Name  string
		Exp   int64
	}{id.Sub, id.Roles, id.Name, exp.Unix()})
	return sha256.Sum256(b)
}

// Either verifies the gateway's tokens (EdDSA) with gateway and every other
// token with other (nil: refused as gateway refuses them): a service behind
// the gateway may also take its identity provider's tokens directly.
func Either(gateway, other Verifier) Verifier {
	if other == nil {
		return gateway
	}
	return either{gateway, other}
}

type either struct{ gateway, other Verifier }

func (e either) Verify(ctx context.Context, token string) (*Identity, error) {
	if algOf(token) == "EdDSA" {
		return e.gateway.Verify(ctx, token)
	}
	return e.other.Verify(ctx, token)
}

// algOf is the alg of a JWT's header, or "" when it cannot be read (the
// verifier then says why).
func algOf(token string) string {
	head, _, ok := strings.Cut(token, ".")
	if !ok {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Alg
}
