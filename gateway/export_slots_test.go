package gateway

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// claimedCSVService serves GET /claimed/:key/:n: n rows streamed through an
// export of key's (httpserver.ExportSlots), as the services' exports.
func claimedCSVService(t *testing.T) string {
	v, _ := auth.NewHS256(secret, auth.Options{})
	var slots httpserver.ExportSlots
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	(&ops.Server{Registry: ops.NewRegistry("csv"), Verifier: v, Routes: []ops.Route{
		{Method: "GET", Path: "/claimed/:key/:n", Access: ops.Public, Handler: func(c *fiber.Ctx) error {
			n, _ := strconv.Atoi(c.Params("n"))
			return slots.StreamCSV(c, c.Params("key"), "rows.csv", []string{"n", "name"}, func() (httpserver.CSVRows, error) {
				return func(row func(...string) error) error {
					for i := 0; i < n; i++ {
						if err := row(strconv.Itoa(i), "Noor Hassan"); err != nil {
							return err
						}
					}
					return nil
				}, nil
			})
		}},
	}}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

// TestOneExportPerCallerThroughTheGateway: while a large export of
// owner-1's is held open (its client reads slowly), a second of owner-1's
// is answered 429 RATE_LIMITED export_in_progress through the gateway and
// owner-2's goes through whole; once the first client goes away, owner-1
// may export again.
func TestOneExportPerCallerThroughTheGateway(t *testing.T) {
	url := claimedCSVService(t)
	gw := startGateway(t, Config{Services: []string{"csv"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour},
		discovery.NewStatic(map[string]string{"csv": url}))
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(gw + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	first, err := http.Get(gw + "/claimed/owner-1/2000000") // about 30 MB: held by its slow reader
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(first.Body, make([]byte, 64<<10)); err != nil || first.StatusCode != 200 {
		t.Fatalf("the first export: %d %v", first.StatusCode, err)
	}
	code, body := get("/claimed/owner-1/10")
	if code != http.StatusTooManyRequests || !strings.Contains(body, "RATE_LIMITED") || !strings.Contains(body, httpserver.ReasonExportInProgress) {
		t.Fatalf("owner-1's second export while the first is held: %d %s", code, body)
	}
	if code, body := get("/claimed/owner-2/10"); code != 200 || strings.Count(body, "\r\n") != 11 {
		t.Fatalf("owner-2's export: %d %q", code, body)
	}
	first.Body.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := get("/claimed/owner-1/10")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("owner-1 still refused after the first client went: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
