package serviceauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	// Lifetime is how long an assertion is good for. Short, so that one seen on
	// the wire is soon worthless; long enough that a caller signs a few per
	// minute at most (Signer reuses one until RenewBefore of it is left).
	Lifetime = 5 * time.Minute
	// RenewBefore is how much of its life an assertion must have left to be
	// sent again: one never arrives expired after a slow call or a skewed clock.
	RenewBefore = time.Minute
	// Leeway is the clock skew between two services' hosts that Verifier
	// forgives on exp and iat.
	Leeway = 30 * time.Second
	// MaxLifetime is the longest exp - iat Verifier accepts: a longer-lived
	// assertion (a forger with a stolen key wanting one for later, a caller
	// misconfigured) is refused rather than trusted for that long.
	MaxLifetime = 10 * time.Minute
)

// Signer makes the assertions of one service, one per audience at a time,
// renewed before they expire. It is safe for concurrent use.
type Signer struct {
	service string
	key     ed25519.PrivateKey
	now     func() time.Time

	mu    sync.Mutex
	cache map[string]signed // audience -> the assertion being sent to it
}

type signed struct {
	token string
	exp   time.Time
}

// NewSigner signs as service with key; now is the clock (nil: time.Now). The
// clock is the hosts' wall clock, not a test's moved business clock: the
// callee checks exp and iat against its own.
func NewSigner(service string, key ed25519.PrivateKey, now func() time.Time) *Signer {
	if now == nil {
		now = time.Now
	}
	return &Signer{service: service, key: key, now: now, cache: map[string]signed{}}
}

// Assertion is the value of Header for a call to audience.
func (s *Signer) Assertion(audience string) (string, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cache[audience]; ok && now.Add(RenewBefore).Before(c.exp) {
		return c.token, nil
	}
	exp := now.Add(Lifetime)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer:    s.service,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}).SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("serviceauth: signing an assertion for %s: %w", audience, err)
	}
	s.cache[audience] = signed{token: tok, exp: exp}
	return tok, nil
}

// Verifier checks the assertions sent to one service. Verified assertions are
// remembered until they expire (a caller sends the same one for minutes), so
// a call costs a hash and a map lookup rather than a signature check; failures
// are never remembered. It is safe for concurrent use.
type Verifier struct {
	self   string
	keys   map[string]ed25519.PublicKey
	parser *jwt.Parser
	now    func() time.Time

	mu       sync.Mutex
	verified map[[32]byte]verifiedEntry
}

type verifiedEntry struct {
	caller string
	exp    time.Time
}

// verifiedMax bounds the remembered assertions: a few per caller are valid at
// a time, so this is never reached by honest callers; at it, expired entries
// go, then (under a flood of valid assertions from a stolen key) all.
const verifiedMax = 4096

// NewVerifier accepts assertions addressed to self and signed by one of keys
// (service -> public key); now is the clock (nil: time.Now).
func NewVerifier(self string, keys map[string]ed25519.PublicKey, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	return &Verifier{
		self: self, keys: keys, now: now, verified: map[[32]byte]verifiedEntry{},
		parser: jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithAudience(self),
			jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(Leeway), jwt.WithTimeFunc(now)),
	}
}

// Refusal says why an assertion was not accepted: Reason is a short label
// (logs, metrics), the error the detail.
type Refusal struct {
	Reason string
	Err    error
}

func (r *Refusal) Error() string {
	return "service assertion refused (" + r.Reason + "): " + r.Err.Error()
}
func (r *Refusal) Unwrap() error { return r.Err }

// Reasons of a Refusal.
const (
	ReasonMalformed     = "malformed"      // not a JWT, or a claim of the wrong type
	ReasonUnknownCaller = "unknown_caller" // iss names no service whose key is known
	ReasonBadSignature  = "bad_signature"  // not signed by the key of the service it names, or not EdDSA
	ReasonWrongAudience = "wrong_audience" // addressed to another service (or to several)
	ReasonExpired       = "expired"
	ReasonNotYetValid   = "not_yet_valid" // issued in the future beyond the leeway
	ReasonMissingClaim  = "missing_claim" // no iss, iat or exp
	ReasonTooLong       = "too_long"      // exp - iat beyond MaxLifetime
)

// Verify returns the calling service an assertion proves, or a *Refusal.
func (v *Verifier) Verify(token string) (string, error) {
	key := sha256.Sum256([]byte(token))
	now := v.now()
	v.mu.Lock()
	e, ok := v.verified[key]
	v.mu.Unlock()
	if ok && now.Before(e.exp) {
		return e.caller, nil
	}
	var c jwt.RegisteredClaims
	_, err := v.parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		iss, _ := t.Claims.GetIssuer()
		k, ok := v.keys[iss]
		if !ok {
			return nil, &Refusal{Reason: ReasonUnknownCaller, Err: fmt.Errorf("no public key of %q", iss)}
		}
		return k, nil
	})
	if err != nil {
		return "", refusal(err)
	}
	switch {
	case c.Issuer == "" || c.IssuedAt == nil:
		return "", &Refusal{Reason: ReasonMissingClaim, Err: errors.New("an assertion names its caller (iss) and when it was issued (iat)")}
	case len(c.Audience) != 1:
		return "", &Refusal{Reason: ReasonWrongAudience, Err: errors.New("an assertion is addressed to exactly one service")}
	case c.ExpiresAt.Sub(c.IssuedAt.Time) > MaxLifetime:
		return "", &Refusal{Reason: ReasonTooLong, Err: fmt.Errorf("lives %s, at most %s", c.ExpiresAt.Sub(c.IssuedAt.Time), MaxLifetime)}
	}
	v.mu.Lock()
	if len(v.verified) >= verifiedMax {
		for k, e := range v.verified {
			if !now.Before(e.exp) {
				delete(v.verified, k)
			}
		}
		if len(v.verified) >= verifiedMax {
			clear(v.verified)
		}
	}
	v.verified[key] = verifiedEntry{caller: c.Issuer, exp: c.ExpiresAt.Time}
	v.mu.Unlock()
	return c.Issuer, nil
}

// refusal maps the JWT library's errors to reasons.
func refusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	reason := ReasonMalformed
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		reason = ReasonBadSignature
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		reason = ReasonWrongAudience
	case errors.Is(err, jwt.ErrTokenExpired):
		reason = ReasonExpired
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		reason = ReasonNotYetValid
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		reason = ReasonMissingClaim
	}
	return &Refusal{Reason: reason, Err: err}
}
