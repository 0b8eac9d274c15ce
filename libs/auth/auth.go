// Package auth verifies the bearer tokens of the platform: JWTs from the external
// identity provider (RS256/ES256 against its JWKS, with issuer, audience and expiry
// checked) in production, or HS256 tokens signed with a development secret.
package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"marketplace/libs/apperr"
)

// RoleAdmin is the role claim value that grants administrator operations.
const RoleAdmin = "admin"

// Identity is the verified caller.
type Identity struct {
	Sub   string   `json:"sub"`
	Roles []string `json:"roles,omitempty"`
	// Name is the person's name from the token's OpenID Connect `name` claim
	// (CleanName), "" when the token has none: shown beside the id in what an
	// administrator changed, never used to decide access.
	Name    string    `json:"name,omitempty"`
	Expires time.Time `json:"-"`
}

// MaxNameLength bounds the name kept from a token, in characters.
const MaxNameLength = 100

// CleanName is a token's name claim as kept: control and format characters
// (bidirectional overrides included) removed, spaces trimmed, at most
// MaxNameLength characters.
func CleanName(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if n == MaxNameLength {
			break
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// IsAdmin reports whether the caller holds the admin role.
func (i *Identity) IsAdmin() bool { return i != nil && slices.Contains(i.Roles, RoleAdmin) }

// Verifier checks a raw token (without the "Bearer " prefix).
type Verifier interface {
	Verify(ctx context.Context, token string) (*Identity, error)
}

type claims struct {
	jwt.RegisteredClaims
	Roles []string `json:"roles,omitempty"`
	Name  string   `json:"name,omitempty"`
}

type verifier struct {
	keyfunc jwt.Keyfunc
	parser  *jwt.Parser
	dev     bool // the development (HS256 secret) verifier
}

// Options are the checks every token must pass beyond its signature.
type Options struct {
	Issuer   string // AUTH_ISSUER; checked when set
	Audience string // AUTH_AUDIENCE; checked when set
}

func newVerifier(kf jwt.Keyfunc, methods []string, o Options) *verifier {
	// iat is checked too (WithIssuedAt): a token issued beyond the leeway in the
	// future comes from a wrong clock or a forger, and is refused like a future nbf.
	po := []jwt.ParserOption{jwt.WithValidMethods(methods), jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(30 * time.Second)}
	if o.Issuer != "" {
		po = append(po, jwt.WithIssuer(o.Issuer))
	}
	if o.Audience != "" {
		po = append(po, jwt.WithAudience(o.Audience))
	}
	return &verifier{keyfunc: kf, parser: jwt.NewParser(po...)}
}

// NewHS256 accepts tokens signed with the development secret (alg pinned to HS256).
func NewHS256(secret []byte, o Options) (Verifier, error) {
	if len(secret) < 16 {
		return nil, errors.New("auth: the development secret must be at least 16 bytes")
	}
	v := newVerifier(func(*jwt.Token) (any, error) { return secret, nil }, []string{"HS256"}, o)
	v.dev = true
	return v, nil
}

// NewJWKS accepts RS256/ES256 tokens whose keys the identity provider publishes at
// url. Keys are refreshed in the background and on an unknown key id.
func NewJWKS(ctx context.Context, url string, o Options) (Verifier, error) {
	kf, err := keyfunc.NewDefaultCtx(ctx, []string{url})
	if err != nil {
		return nil, fmt.Errorf("auth: jwks %s: %w", url, err)
	}
	return newVerifier(kf.Keyfunc, []string{"RS256", "ES256"}, o), nil
}

func (v *verifier) Verify(_ context.Context, token string) (*Identity, error) {
	var c claims
	if _, err := v.parser.ParseWithClaims(token, &c, v.keyfunc); err != nil {
		reason, msg := refusal(err, v.dev)
		return nil, apperr.Wrap(err, apperr.Unauthenticated, "%s", msg).WithDetails(map[string]any{"reason": reason})
	}
	if c.Subject == "" {
		return nil, apperr.New(apperr.Unauthenticated, "token has no subject (sub)").WithDetails(map[string]any{"reason": "no_subject"})
	}
	return &Identity{Sub: c.Subject, Roles: c.Roles, Name: CleanName(c.Name), Expires: c.ExpiresAt.Time}, nil
}

// refusal names why a token was refused: a reason for programs
// (details.reason) and a message for people. With the development verifier,
// a bad signature almost always means a token minted for another data
// directory, so the message says how to mint a matching one.
func refusal(err error, dev bool) (reason, msg string) {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed", "token is malformed: expected a JWT (three base64url parts)"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired", "token expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "not_yet_valid", "token is not valid yet (nbf/iat in the future)"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "wrong_issuer", "token has the wrong issuer (iss)"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "wrong_audience", "token has the wrong audience (aud)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "missing_claim", "token lacks a required claim (exp)"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "unverifiable", "token cannot be verified: unknown signing key or algorithm"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		if dev {
			return "bad_signature", "token signature is invalid: development tokens are signed with the secret of the running system (AUTH_DEV_SECRET, or DATA_DIR/dev-secret): mint one with `make token` using the same DATA_DIR"
		}
		return "bad_signature", "token signature is invalid (or its algorithm is not accepted)"
	}
	return "invalid", "invalid token"
}

// Mint signs a development token; it backs `make token` and the tests.
func Mint(secret []byte, sub string, roles []string, ttl time.Duration, o Options) (string, error) {
	return MintNamed(secret, sub, "", roles, ttl, o)
}

// MintNamed is Mint with the person's name in the `name` claim ("" : none).
func MintNamed(secret []byte, sub, name string, roles []string, ttl time.Duration, o Options) (string, error) {
	now := time.Now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   sub,
			Issuer:    o.Issuer,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
		Roles: roles,
		Name:  name,
	}
	if o.Audience != "" {
		c.Audience = jwt.ClaimStrings{o.Audience}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
}

// BearerToken extracts the token of an Authorization header value. ok is false when
// the header is absent; a present but malformed header is an error.
func BearerToken(header string) (token string, ok bool, err error) {
	if header == "" {
		return "", false, nil
	}
	scheme, tok, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", true, apperr.New(apperr.Unauthenticated, "the Authorization header must be 'Bearer <token>'")
	}
	return strings.TrimSpace(tok), true, nil
}

type ctxKey struct{}

// WithIdentity stores the verified caller in ctx.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// FromContext is the verified caller, or nil for an anonymous call.
func FromContext(ctx context.Context) *Identity {
	id, _ := ctx.Value(ctxKey{}).(*Identity)
	return id
}
