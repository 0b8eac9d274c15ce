package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCallFollowsNoRedirect: the gateway never redirects, so a redirect
// means --url names something else. call and upload do not follow one: Go's
// client would send the Authorization header (a token the caller gave or
// --as minted) on to any port of the same host, and a 307 or 308 the body
// too. The answer says where it pointed, so the user can fix --url.
func TestCallFollowsNoRedirect(t *testing.T) {
	leaked := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked <- r.Method + " " + r.URL.Path + " " + r.Header.Get("Authorization")
		_, _ = w.Write([]byte(`[]`))
	}))
	defer other.Close()
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/api/operations" {
			_, _ = w.Write([]byte(`[{"path":"catalog.locations.listCities","kind":"query","access":"public","service":"catalog","args":[]}]`))
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer gw.Close()
	for _, args := range [][]string{
		{"call", "--url", gw.URL, "--token", "secret-token", "catalog.locations.listCities"},
		{"upload", "--url", gw.URL, "--token", "secret-token", "-"},
	} {
		var out, errOut bytes.Buffer
		err := runCLI(context.Background(), args, &cli{getenv: func(string) string { return "" },
			stdin: strings.NewReader("\x89PNG\r\n\x1a\n"), stdout: &out, stderr: &errOut})
		if err == nil || !strings.Contains(err.Error()+errOut.String(), other.URL) {
			t.Errorf("%s after a redirect: err %v, stderr %q, stdout %q: want a failure naming %s", args[0], err, errOut.String(), out.String(), other.URL)
		}
	}
	close(leaked)
	for l := range leaked {
		t.Errorf("the redirect was followed: %s", l)
	}
}
