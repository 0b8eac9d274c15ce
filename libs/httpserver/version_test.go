package httpserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"marketplace/libs/version"
)

// Every program's own listener answers GET /version with the build it runs.
func TestVersionRoute(t *testing.T) {
	app := New("test", Defaults(), slog.New(slog.DiscardHandler), nil)
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/version", nil), 5000)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var got version.Info
	if resp.StatusCode != 200 || json.Unmarshal(b, &got) != nil || got != version.Get() || got.Version == "" || got.Commit == "" || got.Go == "" {
		t.Fatalf("GET /version: %d %s, want %+v", resp.StatusCode, b, version.Get())
	}
	if !routine["/version"] {
		t.Error("/version polls are not routine (logged at info)")
	}
}
