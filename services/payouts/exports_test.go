package payouts

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
)

// TestOneExportPerCaller: while an export of owner-1's is being written
// (its slot claimed), another of owner-1's is refused 429 RATE_LIMITED
// export_in_progress before any count, and owner-2's goes through; a
// refused export (a bad period) gives its claim back, and so does a
// finished one.
func TestOneExportPerCaller(t *testing.T) {
	ts := newTestSvc(t)
	store := ids.New("stores")
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/:owner/payouts.csv", func(c *fiber.Ctx) error {
		c.SetUserContext(ownerCtxAt(store, c.Params("owner"), 1))
		return ts.storePayoutsCSVRoute(c)
	})
	get := func(owner, query string) (int, string) {
		t.Helper()
		resp, err := app.Test(httptest.NewRequest("GET", "/"+owner+"/payouts.csv?"+query, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	period := "from=0&to=86400000"
	release, ok := ts.exports.Claim("owner-1") // an export of owner-1's being written
	if !ok {
		t.Fatal("claim")
	}
	if code, body := get("owner-1", period); code != 429 || !strings.Contains(body, "RATE_LIMITED") || !strings.Contains(body, httpserver.ReasonExportInProgress) {
		t.Fatalf("owner-1's second export: %d %s", code, body)
	}
	if code, body := get("owner-2", period); code != 200 {
		t.Fatalf("owner-2's export: %d %s", code, body)
	}
	release()
	if code, body := get("owner-1", "from=5&to=1"); code != 400 {
		t.Fatalf("a bad period: %d %s", code, body)
	}
	for i := 0; i < 2; i++ { // the refusal and the first export gave the slot back
		if code, body := get("owner-1", period); code != 200 {
			t.Fatalf("owner-1's export %d after the first ended: %d %s", i, code, body)
		}
	}
}
