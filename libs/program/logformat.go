package program

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// The values of LOG_FORMAT. Unset is "text" when the log output is a
// terminal and "json" otherwise: a person at `make run` reads lines, and
// everything else (containers, systemd, files, pipes, the launcher of the
// distributed mode) gets one JSON object a line.
const (
	LogText = "text"
	LogJSON = "json"
)

// LogFormatOf is the format of the logs written to w: LOG_FORMAT, or its
// default for w (text on a terminal, else json).
func (c *Config) LogFormatOf(w io.Writer) string {
	if f := strings.ToLower(strings.TrimSpace(c.LogFormat)); f != "" {
		return f
	}
	if IsTerminal(w) {
		return LogText
	}
	return LogJSON
}

// IsTerminal tells whether w is a terminal (a file whose descriptor is one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newTextHandler writes one line a record: the local time of day to the
// millisecond, the level, the message and the attributes as key=value, a
// value quoted when it holds spaces, quotes, '=' or control characters.
// With colour, the level is coloured and the keys dimmed (ANSI).
func newTextHandler(w io.Writer, level slog.Leveler, colour bool) *textHandler {
	return &textHandler{out: &lockedWriter{w: w}, level: level, colour: colour}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

type textHandler struct {
	out    *lockedWriter
	level  slog.Leveler
	colour bool
	attrs  []byte // the attributes of With, already formatted
	group  string // the prefix of With's groups, "a.b."
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	c := *h
	c.attrs = slices.Clip(h.attrs)
	for _, a := range as {
		c.attrs = c.appendAttr(c.attrs, h.group, a)
	}
	return &c
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

const (
	ansiReset  = "\x1b[0m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
)

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	b := make([]byte, 0, 256)
	if !r.Time.IsZero() {
		b = h.paint(b, ansiDim, r.Time.Format("15:04:05.000"))
		b = append(b, ' ')
	}
	name, col := levelName(r.Level)
	b = h.paint(b, col, fmt.Sprintf("%-5s", name))
	b = append(b, ' ')
	b = appendMessage(b, r.Message)
	b = append(b, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		b = h.appendAttr(b, h.group, a)
		return true
	})
	b = append(b, '\n')
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := h.out.w.Write(b)
	return err
}

func levelName(l slog.Level) (string, string) {
	switch {
	case l < slog.LevelInfo:
		return l.String(), ansiBlue
	case l < slog.LevelWarn:
		return l.String(), ansiGreen
	case l < slog.LevelError:
		return l.String(), ansiYellow
	}
	return l.String(), ansiRed
}

func (h *textHandler) paint(b []byte, colour, s string) []byte {
	if !h.colour {
		return append(b, s...)
	}
	b = append(b, colour...)
	b = append(b, s...)
	return append(b, ansiReset...)
}

func (h *textHandler) appendAttr(b []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			b = h.appendAttr(b, p, g)
		}
		return b
	}
	b = append(b, ' ')
	b = h.paint(b, ansiDim, prefix+a.Key+"=")
	return appendValue(b, a.Value)
}

func appendValue(b []byte, v slog.Value) []byte {
	var s string
	switch v.Kind() {
	case slog.KindString:
		s = v.String()
	case slog.KindTime:
		s = v.Time().Format(time.RFC3339Nano)
	case slog.KindDuration:
		s = v.Duration().String()
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprint(x)
		}
	default:
		s = v.String()
	}
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// appendMessage writes a record's message as it is, unless it holds a
// character a terminal would not print as such (a newline: a forged line
// after it; an ANSI escape): then escaped as in a Go string, unquoted. A
// message may carry a dependency's text (the processor client's lines).
func appendMessage(b []byte, m string) []byte {
	for _, r := range m {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			q := strconv.Quote(m)
			return append(b, q[1:len(q)-1]...)
		}
	}
	return append(b, m...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if r == ' ' || r == '"' || r == '=' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}
