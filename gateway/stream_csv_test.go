package gateway

import (
	"bufio"
	"encoding/csv"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// csvService serves GET /exports/:n: n rows streamed through
// httpserver.StreamCSV, and GET /slow/:n: n rows in 20 parts, pause apart.
func csvService(t *testing.T, pause time.Duration) string {
	v, _ := auth.NewHS256(secret, auth.Options{})
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	(&ops.Server{Registry: ops.NewRegistry("csv"), Verifier: v, Routes: []ops.Route{
		{Method: "GET", Path: "/exports/:n", Access: ops.Public, Handler: func(c *fiber.Ctx) error {
			n, _ := strconv.Atoi(c.Params("n"))
			return httpserver.StreamCSV(c, "rows.csv", []string{"n", "name", "amount"}, func(row func(...string) error) error {
				for i := 0; i < n; i++ {
					if err := row(strconv.Itoa(i), "Noor Hassan", "12.50"); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{Method: "GET", Path: "/slow/:n", Access: ops.Public, Handler: func(c *fiber.Ctx) error {
			n, _ := strconv.Atoi(c.Params("n"))
			return httpserver.StreamCSV(c, "slow.csv", []string{"n"}, func(row func(...string) error) error {
				for i := 0; i < n; i++ {
					if i%(n/20) == 0 {
						time.Sleep(pause)
					}
					if err := row(strconv.Itoa(i)); err != nil {
						return err
					}
				}
				return nil
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

// TestStreamedCSVThroughTheGateway: a CSV of 100,000 rows streamed by its
// service arrives whole through the gateway, at once (a chunked answer used
// to wait for the upstream timeout: upstreamBody.Close), also to a client
// that reads it for longer than the gateway's upstream timeout (a phone on a
// slow line), and from a service that writes it for longer than that (a
// database read page by page): the timeout bounds a silence, not a file.
func TestStreamedCSVThroughTheGateway(t *testing.T) {
	const rows = 100_000
	timeout := 4 * time.Second // the fast read must take under 3/4 of it, also at load under -race
	url := csvService(t, timeout/10)
	gw := startGateway(t, Config{Services: []string{"csv"}, UpstreamTimeout: timeout, RefreshInterval: time.Hour},
		discovery.NewStatic(map[string]string{"csv": url}))
	for _, slow := range []bool{false, true} {
		start := time.Now()
		resp, err := http.Get(gw + "/exports/" + strconv.Itoa(rows))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != httpserver.CSVContentType ||
			resp.Header.Get("Content-Disposition") != `attachment; filename="rows.csv"` {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
		var body io.Reader = resp.Body
		if slow { // longer than the timeout to read it all
			body = &slowReader{r: resp.Body, every: 64 << 10, pause: timeout / 32}
		}
		got, err := csv.NewReader(bufio.NewReader(body)).ReadAll()
		resp.Body.Close()
		if err != nil || len(got) != rows+1 || got[rows][0] != strconv.Itoa(rows-1) {
			t.Fatalf("slow %v: %d rows after %v: %v", slow, len(got), time.Since(start), err)
		}
		t.Logf("slow %v: %d rows in %v", slow, len(got)-1, time.Since(start))
		if !slow && time.Since(start) > timeout*3/4 {
			t.Fatalf("%d rows took %v", rows, time.Since(start))
		}
	}
	start := time.Now()
	resp, err := http.Get(gw + "/slow/20000")
	if err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(got) != 20_001 || time.Since(start) < 2*timeout {
		t.Fatalf("a slow service: %d rows after %v: %v", len(got), time.Since(start), err)
	}
}

// slowReader pauses after every `every` bytes.
type slowReader struct {
	r     io.Reader
	every int
	n     int
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(p) > s.every-s.n {
		p = p[:s.every-s.n]
	}
	n, err := s.r.Read(p)
	if s.n += n; s.n >= s.every {
		s.n = 0
		time.Sleep(s.pause)
	}
	return n, err
}

// TestStreamedCSVOutlastsTheGatewaysWriteTimeout: the gateway's write
// timeout is one deadline for the whole answer; a file its service streams
// for longer still reaches the client whole, the deadline moving with each
// piece.
func TestStreamedCSVOutlastsTheGatewaysWriteTimeout(t *testing.T) {
	timeout := time.Second
	url := csvService(t, timeout/10)
	h := httpserver.Defaults()
	h.AccessLog, h.WriteTimeout = false, timeout/2
	gw := startGatewayServing(t, Config{Services: []string{"csv"}, UpstreamTimeout: timeout, RefreshInterval: time.Hour},
		discovery.NewStatic(map[string]string{"csv": url}), h)
	start := time.Now()
	resp, err := http.Get(gw + "/slow/20000")
	if err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || len(got) != 20_001 {
		t.Fatalf("%d rows after %v (write timeout %v): %v", len(got), time.Since(start), h.WriteTimeout, err)
	}
	if time.Since(start) < 2*h.WriteTimeout {
		t.Fatalf("the file took %v, not longer than the write timeout: the test proves nothing", time.Since(start))
	}
}
