package httpserver

// CSV exports (ADR 0157): a route answers a file of rows as it writes them,
// never held whole, after every check that can refuse it (access, period,
// row cap) has passed: once the first byte is out the status is 200 and an
// error can only cut the body short, which the client sees as a truncated
// chunked answer (the connection ends without the last chunk), never as a
// file that looks complete.

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
)

// MaxCSVDays is the longest period an export covers (from..to, inclusive).
const MaxCSVDays = 366

// CSVContentType is the Content-Type of every CSV export.
const CSVContentType = "text/csv; charset=utf-8"

// CSVRows writes an export's rows in order, calling row once per row. An
// error from row (the client went away) must end it, returned as is. It runs
// after the handler returned, on another goroutine: it must not touch the
// request's *fiber.Ctx (take what it needs from it before StreamCSV).
type CSVRows func(row func(cells ...string) error) error

// CSVRowsOf writes rows already in memory.
func CSVRowsOf(rows [][]string) CSVRows {
	return func(row func(...string) error) error {
		for _, r := range rows {
			if err := row(r...); err != nil {
				return err
			}
		}
		return nil
	}
}

// StreamCSV answers 200 with a CSV file named filename (its characters
// outside [A-Za-z0-9._-] become _): the header row, then rows, quoted per RFC
// 4180 (CRLF line ends; a cell holding a comma, a quote or a line break in
// quotes, its quotes doubled) and each cell guarded by CSVCell. The body is
// streamed: each 32 KiB goes out as it is written. Refusals come before:
// check access, the period (ParsePeriod) and the row cap before calling it.
// release (an ExportSlots claim, optional) is called once the rows are
// written, cut short by an error or by the client going away.
func StreamCSV(c *fiber.Ctx, filename string, header []string, rows CSVRows, release ...func()) error {
	c.Set(fiber.HeaderContentType, CSVContentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+safeFilename(filename)+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	pr, pw := io.Pipe()
	// The server's write timeout is one deadline for the whole answer, set
	// before its first byte: a file still streaming then would be cut. Each
	// chunk handed on moves the deadline, so it bounds a silence (a client
	// that stopped reading), not a file.
	var w io.Writer = pw
	if conn := c.Context().Conn(); conn != nil {
		w = deadlineWriter{pw, conn}
	}
	go func() {
		var err error
		defer func() {
			// A panic while making rows cuts this file short, not the
			// process: no recoverer watches this goroutine.
			if p := recover(); p != nil {
				err = fmt.Errorf("httpserver: the CSV's rows panicked: %v", p)
			}
			// Released before the body ends: a client that saw the end may
			// ask again at once.
			for _, r := range release {
				r()
			}
			pw.CloseWithError(err) // nil: the end of the body
		}()
		err = WriteCSV(w, header, rows)
	}()
	// A reader's error (rows failed) makes fasthttp end the connection
	// without the chunked body's last chunk; when the client goes away
	// fasthttp closes pr, and the writer's next write fails.
	c.Status(fiber.StatusOK).Response().SetBodyStream(pr, -1)
	return nil
}

// StreamWriteWindow is how long a streamed file's next chunk may take to
// leave, the server's write deadline moved at each chunk (StreamCSV).
const StreamWriteWindow = 30 * time.Second

// deadlineWriter moves the connection's write deadline before each chunk.
type deadlineWriter struct {
	w    io.Writer
	conn interface{ SetWriteDeadline(time.Time) error }
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	_ = d.conn.SetWriteDeadline(time.Now().Add(StreamWriteWindow))
	return d.w.Write(p)
}

// WriteCSV writes the header and rows to w as StreamCSV sends them.
func WriteCSV(w io.Writer, header []string, rows CSVRows) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	guarded := make([]string, 0, len(header))
	row := func(cells ...string) error {
		guarded = guarded[:0]
		for _, s := range cells {
			guarded = append(guarded, CSVCell(s))
		}
		if err := cw.Write(guarded); err != nil {
			return err
		}
		return nil
	}
	if err := row(header...); err != nil {
		return err
	}
	if err := rows(row); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// CSVCell guards a cell against formula injection: text that begins with =,
// +, -, @, a tab or a carriage return, which a spreadsheet may run as a
// formula, gets a leading apostrophe, so it shows as the text it is. A plain
// decimal number ("-12.50") is left alone: it is never a formula, and a
// signed amount must stay a number.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if !plainNumber(s) {
			return "'" + s
		}
	}
	return s
}

// plainNumber: -?[0-9]+(\.[0-9]+)?
func plainNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	digits := func(t string) bool {
		if t == "" {
			return false
		}
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return true
	}
	return digits(whole) && (!dot || digits(frac))
}

func safeFilename(name string) string {
	b := []byte(name)
	for i, ch := range b {
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '.', ch == '_', ch == '-':
		default:
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "export.csv"
	}
	return string(b)
}

// ParsePeriod reads an export's period from its query's from and to (epoch
// milliseconds, inclusive): INVALID_ARGUMENT naming the field when one is
// missing or not a number, when to is before from, or when the period is
// longer than maxDays days (details reason range_too_large, maxDays).
func ParsePeriod(fromText, toText string, maxDays int) (from, to int64, err error) {
	for _, q := range []struct {
		name, v string
		dst     *int64
	}{{"from", fromText, &from}, {"to", toText, &to}} {
		n, err := strconv.ParseInt(q.v, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, apperr.Invalid(q.name, "must be epoch milliseconds, not %q", q.v)
		}
		*q.dst = n
	}
	if from > to {
		return 0, 0, apperr.Invalid("to", "must not be before from (%d > %d)", from, to)
	}
	if to-from > int64(maxDays)*24*60*60*1000 {
		return 0, 0, apperr.New(apperr.InvalidArgument, "to: an export covers at most %d days; ask for shorter periods", maxDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": maxDays})
	}
	return from, to, nil
}

// TooManyRows is the answer of an export whose rows are over its cap
// (FAILED_PRECONDITION too_many_rows): count them (read cap+1) before
// StreamCSV, and ask for a shorter period or a narrower filter.
func TooManyRows(limit int) error {
	return apperr.New(apperr.FailedPrecondition, "%s", fmt.Sprintf("the export has more than %d rows; ask for a shorter period or a narrower filter", limit)).
		WithDetails(map[string]any{"reason": "too_many_rows", "maxRows": limit})
}
