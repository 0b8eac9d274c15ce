// Command oidcprovider is a real OpenID provider for tests of the console's
// production sign-in: zitadel/oidc's example server (its op package, login
// screen and in-memory storage, from the module proxy), listening on
// loopback and issuing the platform's tokens: JWT access tokens signed RS256
// with keys published at /keys, whose sub is the user id and whose roles
// claim holds admin for administrators, for the audience of the console's
// client id. The console's client is public (no secret) and must use PKCE;
// asking for offline_access, it gets a refresh token that renews the access
// token (-access-ttl, 5 minutes unless told).
//
// It is a module of its own, outside go.work, so its dependencies reach no
// program of the platform; tests build it (GOWORK=off go build) and run it:
//
//	oidcprovider -addr 127.0.0.1:0 -client marketplace-console -redirect http://127.0.0.1:8080/admin/,http://127.0.0.1:8080/store/
//
// It prints "issuer <url>" once it listens. Users (password "verysecure"):
// admin@marketplace.test (sub admin-1, an administrator) and
// owner@marketplace.test (sub owner-1).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Password is every test user's password.
const Password = "verysecure"

type users map[string]*storage.User

func (u users) GetUserByID(id string) *storage.User { return u[id] }
func (u users) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (u users) ExampleClientID() string { return storage.ServiceUserID }

// platformStorage is the example's storage issuing the platform's tokens.
type platformStorage struct {
	*storage.Storage
	users     users
	accessTTL time.Duration // the access tokens' lifetime (the example's is 5 minutes)
}

// CreateAccessToken and CreateAccessAndRefreshTokens give the access token
// the provider's lifetime (-access-ttl: tests of renewal want seconds).
func (s *platformStorage) CreateAccessToken(ctx context.Context, r op.TokenRequest) (string, time.Time, error) {
	id, _, err := s.Storage.CreateAccessToken(ctx, r)
	return id, time.Now().Add(s.accessTTL), err
}

func (s *platformStorage) CreateAccessAndRefreshTokens(ctx context.Context, r op.TokenRequest, current string) (string, string, time.Time, error) {
	id, refresh, _, err := s.Storage.CreateAccessAndRefreshTokens(ctx, r, current)
	return id, refresh, time.Now().Add(s.accessTTL), err
}

// jwtClient makes the example's client's access tokens JWTs (the gateway
// verifies them against the provider's keys; opaque tokens it cannot read).
type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }

func (s *platformStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

// GetPrivateClaimsFromScopes adds the platform's roles claim to the access
// token: ["admin"] for administrators, [] otherwise.
func (s *platformStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	if err != nil {
		return nil, err
	}
	if claims == nil {
		claims = map[string]any{}
	}
	roles := []string{}
	if u := s.users[userID]; u != nil && u.IsAdmin {
		roles = append(roles, "admin")
	}
	claims["roles"] = roles
	return claims, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback)")
	client := flag.String("client", "marketplace-console", "the console's client id (public, PKCE)")
	redirect := flag.String("redirect", "", "the console's redirect URIs, comma-separated")
	accessTTL := flag.Duration("access-ttl", 5*time.Minute, "access tokens' lifetime (refresh tokens renew them)")
	flag.Parse()
	if *redirect == "" {
		fmt.Fprintln(os.Stderr, "oidcprovider: -redirect is required")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidcprovider:", err)
		os.Exit(1)
	}
	issuer := "http://" + ln.Addr().String()
	storage.RegisterClients(storage.NativeClient(*client, strings.Split(*redirect, ",")...))
	us := users{
		"admin-1": {ID: "admin-1", Username: "admin@marketplace.test", Password: Password, FirstName: "Platform", LastName: "Admin",
			Email: "admin@marketplace.test", EmailVerified: true, PreferredLanguage: language.English, IsAdmin: true},
		"owner-1": {ID: "owner-1", Username: "owner@marketplace.test", Password: Password, FirstName: "Sara", LastName: "Al Marri",
			Email: "owner@marketplace.test", EmailVerified: true, PreferredLanguage: language.Arabic},
	}
	st := &platformStorage{Storage: storage.NewStorage(us), users: us, accessTTL: *accessTTL}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	router := exampleop.SetupServer(issuer, st, logger, false)
	fmt.Printf("issuer %s\n", issuer)
	if err := http.Serve(ln, router); err != nil {
		fmt.Fprintln(os.Stderr, "oidcprovider:", err)
		os.Exit(1)
	}
}
