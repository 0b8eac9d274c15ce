// Package serviceauth proves which service makes a call to another one.
//
// Each service holds an Ed25519 private key of its own. On every call to
// another service it sends, in the X-Service-Assertion header, a short-lived
// JWT (a compact JWS, alg EdDSA) with iss = the calling service, aud = the
// called service, iat and exp (Lifetime later). The callee knows every
// service's public key, checks the signature, that it is the audience, that
// the assertion is not expired and was not issued in the future, and then
// knows the caller by name: whether that caller may call its internal
// operations is the callee's decision (its declared callers, package ops).
//
// An assertion is a bearer credential for Lifetime, bound to one audience: a
// callee cannot replay what it received to another service, and one seen on
// the wire stops working minutes later, where the shared token it replaces
// worked anywhere, for ever. The JWT encoding and checks are
// github.com/golang-jwt/jwt/v5 (already verifying the users' tokens, libs/auth);
// the keys are crypto/ed25519.
package serviceauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Header carries the caller's assertion. The gateway never forwards it (it
// relays a fixed list of headers, this one not among them).
const Header = "X-Service-Assertion"

// Credentials are what one service holds: its private key (it signs its calls
// with it), the public keys of the services that may call it, and which of
// them may call its internal operations. The zero value makes no
// authenticated calls and accepts none.
type Credentials struct {
	Key     ed25519.PrivateKey
	Peers   map[string]ed25519.PublicKey
	Callers []string
}

// Check reports credentials service cannot use as given: a declared caller
// without a public key (its calls could never be verified), or a private key
// that is not the one the public keys give for service itself (every callee
// would refuse its calls).
func (c Credentials) Check(service string) error {
	for _, caller := range c.Callers {
		if _, ok := c.Peers[caller]; !ok {
			return fmt.Errorf("INTERNAL_CALLERS names %s, but SERVICE_PUBLIC_KEYS has no key of %s: its calls could never be verified", caller, caller)
		}
	}
	if own, ok := c.Peers[service]; ok && c.Key != nil && !own.Equal(c.Key.Public()) {
		return fmt.Errorf("SERVICE_KEY is not the key whose public half SERVICE_PUBLIC_KEYS gives for %s: the services it calls would refuse its calls", service)
	}
	return nil
}

// GenerateKey makes a new private key.
func GenerateKey() (ed25519.PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	return k, err
}

// EncodePrivateKey is the form SERVICE_KEY takes: the key's 32-byte seed,
// base64url without padding.
func EncodePrivateKey(k ed25519.PrivateKey) string {
	return base64.RawURLEncoding.EncodeToString(k.Seed())
}

// EncodePublicKey is the form a key takes in SERVICE_PUBLIC_KEYS: its 32
// bytes, base64url without padding.
func EncodePublicKey(k ed25519.PublicKey) string {
	return base64.RawURLEncoding.EncodeToString(k)
}

// ParsePrivateKey reads SERVICE_KEY: a 32-byte seed in base64 (url or
// standard alphabet, padded or not), as EncodePrivateKey and `marketplace
// keygen` write it, or a PEM "PRIVATE KEY" block (PKCS #8, as `openssl
// genpkey -algorithm ed25519` writes it).
func ParsePrivateKey(s string) (ed25519.PrivateKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		block, _ := pem.Decode([]byte(s))
		if block == nil || block.Type != "PRIVATE KEY" {
			return nil, errors.New("a PEM private key must be one PKCS #8 \"PRIVATE KEY\" block")
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM private key: %w", err)
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("the PEM private key is a %T, not an Ed25519 key", k)
		}
		return ek, nil
	}
	b, err := decode64(s)
	if err != nil {
		return nil, errors.New("must be an Ed25519 key: its 32-byte seed in base64 (marketplace keygen) or a PEM PKCS #8 block")
	}
	if len(b) != ed25519.SeedSize {
		return nil, fmt.Errorf("an Ed25519 seed is %d bytes, this one %d", ed25519.SeedSize, len(b))
	}
	return ed25519.NewKeyFromSeed(b), nil
}

// ParsePublicKeys reads SERVICE_PUBLIC_KEYS: "service=<base64 key>,..." (each
// key the 32 bytes of an Ed25519 public key). A service named twice is an
// error: which key would count is not for the reader to guess.
func ParsePublicKeys(entries []string) (map[string]ed25519.PublicKey, error) {
	out := map[string]ed25519.PublicKey{}
	for _, e := range entries {
		name, key, ok := strings.Cut(strings.TrimSpace(e), "=")
		name, key = strings.TrimSpace(name), strings.TrimSpace(key)
		if !ok || name == "" || key == "" {
			return nil, fmt.Errorf("SERVICE_PUBLIC_KEYS entry %q must be service=<base64 public key>", e)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("SERVICE_PUBLIC_KEYS names %s twice", name)
		}
		b, err := decode64(key)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("SERVICE_PUBLIC_KEYS: the key of %s must be a %d-byte Ed25519 public key in base64", name, ed25519.PublicKeySize)
		}
		out[name] = ed25519.PublicKey(b)
	}
	return out, nil
}

// ParsePublicKey reads one Ed25519 public key as EncodePublicKey writes it
// (either base64 alphabet, padded or not).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := decode64(strings.TrimSpace(s))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("must be a %d-byte Ed25519 public key in base64", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// FormatPublicKeys writes keys the way ParsePublicKeys reads them, sorted by
// service.
func FormatPublicKeys(keys map[string]ed25519.PublicKey) string {
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + EncodePublicKey(keys[n])
	}
	return strings.Join(parts, ",")
}

// decode64 accepts either base64 alphabet, padded or not.
func decode64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "+/") {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// Pairs makes a fresh key pair for each of services: what the all-in-one and
// the distributed launcher hand their services on every run.
func Pairs(services []string) (map[string]ed25519.PrivateKey, map[string]ed25519.PublicKey, error) {
	priv, pub := map[string]ed25519.PrivateKey{}, map[string]ed25519.PublicKey{}
	for _, s := range slices.Compact(slices.Sorted(slices.Values(services))) {
		k, err := GenerateKey()
		if err != nil {
			return nil, nil, err
		}
		priv[s], pub[s] = k, k.Public().(ed25519.PublicKey)
	}
	return priv, pub, nil
}
