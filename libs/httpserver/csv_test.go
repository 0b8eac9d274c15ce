package httpserver

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
)

func TestCSVCellGuardsFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"Noor Hassan":           "Noor Hassan",
		"=1+1":                  "'=1+1",
		"=HYPERLINK(\"x\")":     "'=HYPERLINK(\"x\")",
		"+971501234567":         "'+971501234567",
		"-1+1":                  "'-1+1",
		"@SUM(A1)":              "'@SUM(A1)",
		"\tcmd":                 "'\tcmd",
		"\rcmd":                 "'\rcmd",
		"-":                     "'-",
		"-12.50":                "-12.50",
		"-12":                   "-12",
		"-12.":                  "'-12.",
		"-.5":                   "'-.5",
		"12.50":                 "12.50",
		"a=b":                   "a=b",
		" =x":                   " =x",
		"نور حسن":               "نور حسن",
		"-cmd|' /C calc'!A0":    "'-cmd|' /C calc'!A0",
		"=cmd|' /C calc'!A0,\"": "'=cmd|' /C calc'!A0,\"",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func csvApp(rows CSVRows) *fiber.App {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/x.csv", func(c *fiber.Ctx) error {
		return StreamCSV(c, `orders 2026/11 "a".csv`, []string{"name", "amount", "note"}, rows)
	})
	return app
}

// serveCSV answers GET /x.csv over a real connection.
func serveCSV(t *testing.T, rows CSVRows) *http.Response {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := csvApp(rows)
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/x.csv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestStreamCSV: the headers, RFC 4180 quoting with CRLF line ends, the
// injection guard on every cell (the header's too), and the rows in order.
func TestStreamCSV(t *testing.T) {
	in := [][]string{
		{"Noor Hassan", "-12.50", "Fresh, and on time."},
		{"=cmd|' /C calc'!A0", "+1", `say "hi"`},
		{"نور حسن", "3.00", "two\nlines"},
		{"@x", "-", "\tTab"},
	}
	resp, err := csvApp(CSVRowsOf(in)).Test(httptest.NewRequest("GET", "/x.csv", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename="orders_2026_11__a_.csv"` ||
		resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	want := "name,amount,note\r\n" +
		"Noor Hassan,-12.50,\"Fresh, and on time.\"\r\n" +
		"'=cmd|' /C calc'!A0,'+1,\"say \"\"hi\"\"\"\r\n" +
		"نور حسن,3.00,\"two\r\nlines\"\r\n" +
		"'@x,'-,'\tTab\r\n"
	if string(body) != want {
		t.Fatalf("body\n%q\nwant\n%q", body, want)
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 5 || rows[3][2] != "two\nlines" || rows[2][0] != "'=cmd|' /C calc'!A0" {
		t.Fatalf("%q %v", rows, err)
	}
}

// TestStreamCSVStreams: a large export goes out chunked, whole, in order.
func TestStreamCSVStreams(t *testing.T) {
	const n = 100_000
	rows := func(row func(...string) error) error {
		for i := 0; i < n; i++ {
			if err := row("store "+strconv.Itoa(i), strconv.Itoa(i)+".00", "x"); err != nil {
				return err
			}
		}
		return nil
	}
	resp := serveCSV(t, rows)
	got, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil || len(got) != n+1 {
		t.Fatalf("%d rows, %v", len(got), err)
	}
	if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" || resp.ContentLength != -1 {
		t.Fatalf("not streamed: %v %d", resp.TransferEncoding, resp.ContentLength)
	}
	for i, r := range got[1:] {
		if r[1] != strconv.Itoa(i)+".00" {
			t.Fatalf("row %d: %v", i, r)
		}
	}
}

// TestStreamCSVCutShort: rows failing half-way cut the body short: the
// client reads an error, never a file that looks complete.
func TestStreamCSVCutShort(t *testing.T) {
	rows := func(row func(...string) error) error {
		for i := 0; i < 5000; i++ {
			if i == 4000 {
				return errors.New("the database went away")
			}
			if err := row("n", strconv.Itoa(i), ""); err != nil {
				return err
			}
		}
		return nil
	}
	resp := serveCSV(t, rows)
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("read %d bytes without an error", len(b))
	}
}

// TestWriteCSVStopsWhenTheReaderGoes: a client that goes away (fasthttp
// closes the pipe's reader) ends the rows at their next write.
func TestWriteCSVStopsWhenTheReaderGoes(t *testing.T) {
	pr, pw := io.Pipe()
	written, done := 0, make(chan error, 1)
	go func() {
		done <- WriteCSV(pw, []string{"a"}, func(row func(...string) error) error {
			for i := 0; i < 1_000_000; i++ {
				if err := row(strings.Repeat("x", 100)); err != nil {
					return err
				}
				written++
			}
			return nil
		})
	}()
	if _, err := io.ReadFull(pr, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	if err := <-done; !errors.Is(err, io.ErrClosedPipe) || written > 10_000 {
		t.Fatalf("%v after %d rows", err, written)
	}
}

func TestParsePeriod(t *testing.T) {
	day := int64(24 * 60 * 60 * 1000)
	from, to, err := ParsePeriod("0", strconv.FormatInt(366*day, 10), MaxCSVDays)
	if err != nil || from != 0 || to != 366*day {
		t.Fatalf("366 days: %d %d %v", from, to, err)
	}
	for _, c := range []struct{ from, to, field, reason string }{
		{"", "1", "from", ""},
		{"1", "x", "to", ""},
		{"-1", "1", "from", ""},
		{"5", "4", "to", ""},
		{"0", strconv.FormatInt(366*day+1, 10), "to", "range_too_large"},
	} {
		_, _, err := ParsePeriod(c.from, c.to, MaxCSVDays)
		e := apperr.From(err)
		if err == nil || e.Code != apperr.InvalidArgument || e.Details["field"] != c.field || (c.reason != "" && e.Details["reason"] != c.reason) {
			t.Errorf("%s..%s: %v %v", c.from, c.to, err, e.Details)
		}
	}
	e := apperr.From(TooManyRows(10))
	if e.Code != apperr.FailedPrecondition || e.Details["reason"] != "too_many_rows" || !strings.Contains(fmt.Sprint(e.Details["maxRows"]), "10") {
		t.Fatalf("%+v", e)
	}
}

// TestStreamCSVOutlastsTheWriteTimeout: the server's write timeout is one
// deadline for the whole answer; a file that streams for longer (rows read
// slowly, a slow line) still arrives whole, the deadline moving at each
// chunk.
func TestStreamCSVOutlastsTheWriteTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.WriteTimeout, cfg.AccessLog = 300*time.Millisecond, false
	app := New("csv", cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	const batches, perBatch = 8, 2000 // about 40 KiB a batch: each flushes a chunk
	app.Get("/slow.csv", func(c *fiber.Ctx) error {
		return StreamCSV(c, "slow.csv", []string{"n", "note"}, func(row func(...string) error) error {
			for b := 0; b < batches; b++ {
				for i := 0; i < perBatch; i++ {
					if err := row(strconv.Itoa(b*perBatch+i), "a row of about twenty"); err != nil {
						return err
					}
				}
				time.Sleep(150 * time.Millisecond) // 1.2 s in all: four write timeouts
			}
			return nil
		})
	})
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/slow.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil || len(got) != batches*perBatch+1 {
		t.Fatalf("%d rows of %d, %v: the file was cut at the write timeout", len(got), batches*perBatch+1, err)
	}
}

// TestStreamCSVPanickingRowsCutTheFileNotTheProcess: rows that panic end
// that file short (the client reads an error) and release its claim; the
// process goes on (a panic in the writer's goroutine would end it).
func TestStreamCSVPanickingRowsCutTheFileNotTheProcess(t *testing.T) {
	released := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/x.csv", func(c *fiber.Ctx) error {
		return StreamCSV(c, "x.csv", []string{"n"}, func(row func(...string) error) error {
			for i := 0; i < 50_000; i++ { // several chunks out before the panic
				if err := row(strconv.Itoa(i)); err != nil {
					return err
				}
			}
			panic("a row's data is not what it should be")
		}, func() { close(released) })
	})
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/x.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("a file whose rows panicked read as complete")
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("the export's claim was not released")
	}
}
