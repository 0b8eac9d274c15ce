package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"marketplace/libs/auth"
)

// TestConsoleCommand: `marketplace console` prints sign-in links to both
// areas, the token in each link's fragment (never its query), minted with
// the development secret for the administrator and the first store's owner,
// expiring after -ttl; without a store it says how to get one; a named
// owner's stores are named, and an owner of none is warned about; with an
// identity provider configured it refuses.
func TestConsoleCommand(t *testing.T) {
	secret := "0123456789abcdef0123456789abcdef"
	stores := `{"page":[{"_id":"sto_1","name":"Al Noor Bakery","ownerUserId":"owner-7"}],"isDone":true,"continueCursor":""}`
	// The stores each owner owns, as stores.catalog.listMyStores answers
	// the caller its token names.
	owned := map[string]string{"owner-7": `{"page":[{"name":"Al Noor Bakery"},{"name":"Noor Sweets"}],"isDone":true,"continueCursor":""}`}
	v, _ := auth.NewHS256([]byte(secret), auth.Options{})
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.URL.Path == "/api/query" && strings.Contains(string(body), `"catalog.stores.listStores"`):
			io.WriteString(w, stores)
		case r.URL.Path == "/api/query" && strings.Contains(string(body), `"stores.catalog.listMyStores"`):
			id, err := v.Verify(r.Context(), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			if err != nil {
				http.Error(w, "unauthenticated", http.StatusUnauthorized)
				return
			}
			if page, ok := owned[id.Sub]; ok {
				io.WriteString(w, page)
				return
			}
			io.WriteString(w, `{"page":[],"isDone":true,"continueCursor":""}`)
		default:
			http.Error(w, "unexpected call", http.StatusBadRequest)
		}
	}))
	defer gw.Close()
	env := map[string]string{"AUTH_DEV_SECRET": secret, "DATA_DIR": t.TempDir(), "PUBLIC_BASE_URL": gw.URL}
	getenv := func(k string) string { return env[k] }
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runArgs(context.Background(), append([]string{"console"}, args...), getenv, &out)
		return out.String(), err
	}
	out, err := run("-ttl", "10m")
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`https?://\S+`).FindAllString(out, -1)
	if len(links) != 2 || !strings.Contains(out, "owner-7, owner of Al Noor Bakery") || !strings.Contains(out, "valid 10m") {
		t.Fatalf("output:\n%s", out)
	}
	for i, want := range []struct{ path, sub string }{{"/admin/", "admin-1"}, {"/store/", "owner-7"}} {
		u, err := url.Parse(links[i])
		if err != nil || u.Path != want.path || u.RawQuery != "" || !strings.HasPrefix(u.Fragment, "token=") {
			t.Fatalf("link %q: the token must be in the fragment of %s", links[i], want.path)
		}
		id, err := v.Verify(context.Background(), strings.TrimPrefix(u.Fragment, "token="))
		if err != nil || id.Sub != want.sub || (want.sub == "admin-1") != id.IsAdmin() {
			t.Fatalf("link %s: %+v %v", want.path, id, err)
		}
		if left := time.Until(id.Expires); left > 10*time.Minute || left < 9*time.Minute {
			t.Fatalf("link %s expires in %s, want 10m", want.path, left)
		}
	}

	stores = `{"page":[],"isDone":true,"continueCursor":""}`
	if out, err = run(); err != nil || !strings.Contains(out, "no store yet") || strings.Count(out, "#token=") != 1 {
		t.Fatalf("without a store: %v\n%s", err, out)
	}
	// A named owner who owns no store: the link, and a warning.
	if out, err = run("-owner", "owner-9"); err != nil || !strings.Contains(out, "store owner owner-9 (valid") || strings.Count(out, "#token=") != 2 ||
		!strings.Contains(out, "warning: owner-9 owns no store") {
		t.Fatalf("a named owner without a store: %v\n%s", err, out)
	}
	// One who owns stores: their names, no warning.
	if out, err = run("-owner", "owner-7"); err != nil || !strings.Contains(out, "store owner owner-7, owner of Al Noor Bakery, Noor Sweets (valid") ||
		strings.Contains(out, "warning") {
		t.Fatalf("a named owner with stores: %v\n%s", err, out)
	}
	if _, err := run("-ttl", "48h"); err == nil {
		t.Fatal("a two-day link accepted")
	}
	// Without PUBLIC_BASE_URL, the system is the one call and ops reach
	// (MARKETPLACE_URL), before the default listening address.
	delete(env, "PUBLIC_BASE_URL")
	env[EnvURL] = gw.URL + "/"
	stores = `{"page":[{"_id":"sto_1","name":"Al Noor Bakery","ownerUserId":"owner-7"}],"isDone":true,"continueCursor":""}`
	if out, err = run(); err != nil || strings.Count(out, gw.URL+"/admin/#token=") != 1 || strings.Count(out, gw.URL+"/store/#token=") != 1 {
		t.Fatalf("with MARKETPLACE_URL: %v\n%s", err, out)
	}
	env["AUTH_JWKS_URL"], env["AUTH_DEV_SECRET"] = "https://id.example/jwks", ""
	env["AUTH_ISSUER"], env["AUTH_AUDIENCE"] = "https://id.example", "marketplace"
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "identity provider") {
		t.Fatalf("with an identity provider: %v", err)
	}
}
