package httpserver

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
)

// ReasonExportInProgress is details.reason of the refusal of an export
// while another of the same caller is still being written (ADR 0157).
const ReasonExportInProgress = "export_in_progress"

// ExportSlots allow one export per key (the caller's subject) at a time, in
// this process: an export claims its caller's slot before its count and
// gives it back when its rows are written (StreamCSV's release), cut short
// or refused. Each service keeps its own, so the limit is per caller per
// service. The zero value is ready to use.
type ExportSlots struct {
	mu   sync.Mutex
	held map[string]bool
}

// Claim takes key's slot: ok false when an export of key holds it. release
// gives it back; calling it again does nothing.
func (s *ExportSlots) Claim(key string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[key] {
		return func() {}, false
	}
	if s.held == nil {
		s.held = map[string]bool{}
	}
	s.held[key] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.held, key)
			s.mu.Unlock()
		})
	}, true
}

// ExportInProgress is the refusal of a second export of one caller while
// the first is being written: RATE_LIMITED (429), details.reason
// export_in_progress.
func ExportInProgress() *apperr.Error {
	return apperr.New(apperr.RateLimited, "an export of yours is still being written: wait until it ends, then ask again").
		WithDetails(map[string]any{"reason": ReasonExportInProgress})
}

// StreamCSV is an export of key's: it claims key's slot (taken:
// ExportInProgress), runs prepare (the export's checks and row count), and
// streams the rows prepare returns, the slot given back when they end; a
// refusal of prepare's gives it back at once.
func (s *ExportSlots) StreamCSV(c *fiber.Ctx, key, filename string, header []string, prepare func() (CSVRows, error)) error {
	release, ok := s.Claim(key)
	if !ok {
		return WriteError(c, ExportInProgress())
	}
	streaming := false
	defer func() {
		if !streaming {
			release()
		}
	}()
	rows, err := prepare()
	if err != nil {
		return WriteError(c, err)
	}
	streaming = true
	return StreamCSV(c, filename, header, rows, release)
}

// CountedRows are an export's rows, counted before the answer starts:
// count answers how many rows there are, or any number over max when there
// are more (read max+1 at most); more than max is refused (TooManyRows)
// before any byte.
// Else write writes the rows once the answer started, under a context of
// its own bounded by timeout (the request's may end when the handler
// returns). The prepare of StreamCSV.
func CountedRows(ctx context.Context, max int64, timeout time.Duration, count func(max int64) (int64, error),
	write func(ctx context.Context, row func(...string) error) error) (CSVRows, error) {
	n, err := count(max)
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, TooManyRows(int(max))
	}
	return func(row func(...string) error) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		return write(ctx, row)
	}, nil
}
