package httpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
)

// TestExportSlots: one claim per key at a time; another key is free; a
// release gives the slot back, once (a second call frees nothing another
// claim took since).
func TestExportSlots(t *testing.T) {
	var s ExportSlots
	r1, ok := s.Claim("owner-1")
	if !ok {
		t.Fatal("the first claim refused")
	}
	if _, ok := s.Claim("owner-1"); ok {
		t.Fatal("a second claim of owner-1 while the first holds")
	}
	r2, ok := s.Claim("owner-2")
	if !ok {
		t.Fatal("owner-2 refused while owner-1 holds")
	}
	r1()
	r3, ok := s.Claim("owner-1")
	if !ok {
		t.Fatal("owner-1 refused after its release")
	}
	r1() // again: must not free r3's claim
	if _, ok := s.Claim("owner-1"); ok {
		t.Fatal("a repeated release freed a later claim")
	}
	r2()
	r3()
	e := ExportInProgress()
	if e.Code != apperr.RateLimited || e.Code.Status() != http.StatusTooManyRequests || e.Details["reason"] != ReasonExportInProgress {
		t.Fatalf("refusal %+v", e)
	}
}

// serveClaimedCSV answers GET /x.csv with rows, its claim of key released
// by StreamCSV.
func serveClaimedCSV(t *testing.T, s *ExportSlots, rows CSVRows) *http.Response {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/x.csv", func(c *fiber.Ctx) error {
		release, ok := s.Claim("owner-1")
		if !ok {
			return WriteError(c, ExportInProgress())
		}
		return StreamCSV(c, "x.csv", []string{"a"}, rows, release)
	})
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/x.csv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// freed waits for owner-1's slot to be free (StreamCSV releases it on its
// writer's goroutine, after the body's end).
func freed(t *testing.T, s *ExportSlots, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if r, ok := s.Claim("owner-1"); ok {
			r()
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: the claim is still held", what)
}

// TestStreamCSVReleasesItsClaim: the claim is held while the rows are
// written (a second export is refused 429 export_in_progress) and given
// back when they end: written whole, cut short by an error, or the client
// gone away.
func TestStreamCSVReleasesItsClaim(t *testing.T) {
	many := func(stop error) CSVRows {
		return func(row func(...string) error) error {
			for i := 0; i < 1_000_000; i++ {
				if stop != nil && i == 50_000 {
					return stop
				}
				if err := row(strings.Repeat("x", 100)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	t.Run("written whole", func(t *testing.T) {
		var s ExportSlots
		resp := serveClaimedCSV(t, &s, CSVRowsOf([][]string{{"1"}, {"2"}}))
		if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "a\r\n1\r\n2\r\n" {
			t.Fatalf("%q %v", b, err)
		}
		freed(t, &s, "written whole")
	})
	t.Run("cut short", func(t *testing.T) {
		var s ExportSlots
		resp := serveClaimedCSV(t, &s, many(errors.New("the database went away")))
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Fatal("a cut body read whole")
		}
		freed(t, &s, "cut short")
	})
	t.Run("held while written, then the client goes", func(t *testing.T) {
		var s ExportSlots
		resp := serveClaimedCSV(t, &s, many(nil))
		if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		second := serveClaimedCSV(t, &s, many(nil))
		b, _ := io.ReadAll(second.Body)
		if second.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), ReasonExportInProgress) {
			t.Fatalf("a second export while the first is written: %d %s", second.StatusCode, b)
		}
		resp.Body.Close()
		freed(t, &s, "client gone")
	})
}

// TestCountedRows: more rows than the cap is TooManyRows before any row
// (the count is asked with the cap), exactly the cap is allowed, a count's
// error is returned as is; the rows are written under a context of their
// own that outlives the request's and ends after the timeout.
func TestCountedRows(t *testing.T) {
	write := func(ctx context.Context, row func(...string) error) error { return row("a") }
	for _, c := range []struct {
		n      int64
		err    error
		refuse string
	}{{5, nil, "too_many_rows"}, {4, nil, ""}, {0, errors.New("down"), "down"}} {
		var asked int64
		rows, err := CountedRows(context.Background(), 4, time.Minute, func(max int64) (int64, error) { asked = max; return c.n, c.err }, write)
		if asked != 4 {
			t.Errorf("count asked with %d, want the cap 4", asked)
		}
		switch {
		case c.refuse == "too_many_rows":
			if e := apperr.From(err); e.Code != apperr.FailedPrecondition || e.Details["reason"] != "too_many_rows" {
				t.Errorf("%d rows over 4: %v", c.n, err)
			}
		case c.refuse != "":
			if err != c.err {
				t.Errorf("count's error: %v", err)
			}
		default:
			var got []string
			if err != nil || rows(func(cells ...string) error { got = append(got, cells...); return nil }) != nil || len(got) != 1 {
				t.Errorf("4 rows of 4: %v %v", err, got)
			}
		}
	}
	req, cancel := context.WithCancel(context.Background())
	var alive, deadline bool
	rows, err := CountedRows(req, 4, time.Minute, func(int64) (int64, error) { return 1, nil }, func(ctx context.Context, row func(...string) error) error {
		_, deadline = ctx.Deadline()
		alive = ctx.Err() == nil
		return nil
	})
	cancel() // the handler returned
	if err != nil || rows(func(...string) error { return nil }) != nil || !alive || !deadline {
		t.Fatalf("rows after the request ended: %v, alive %v, deadline %v", err, alive, deadline)
	}
}
