package launch

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// output is a stream the processes' lines are merged into, each line whole
// and prefixed with its process's name (as docker compose does).
type output struct {
	mu    sync.Mutex
	w     io.Writer
	width int
}

func (o *output) line(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.w, "%-*s | %s\n", o.width, name, text)
}

// maxLine bounds a line held while waiting for its end; a longer one is
// written in pieces.
const maxLine = 64 << 10

// tailLines is how many of a process's last lines an error quotes.
const tailLines = 15

// lineWriter is one process's stdout or stderr: it splits what the process
// writes into lines, forwards them to out, keeps the last ones for error
// messages and hands each to onLine.
type lineWriter struct {
	out    *output
	name   string
	buf    []byte
	onLine func(string)

	mu   sync.Mutex
	tail []string
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.emit(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > maxLine {
		l.flush()
	}
	return len(p), nil
}

// flush writes a last line that has no newline (call once the writer is no
// longer written to: after the process was waited for).
func (l *lineWriter) flush() {
	if len(l.buf) > 0 {
		l.emit(string(l.buf))
		l.buf = nil
	}
}

func (l *lineWriter) emit(s string) {
	s = strings.TrimRight(s, "\r")
	l.out.line(l.name, s)
	l.mu.Lock()
	l.tail = append(l.tail, s)
	if len(l.tail) > tailLines {
		l.tail = l.tail[len(l.tail)-tailLines:]
	}
	l.mu.Unlock()
	if l.onLine != nil {
		l.onLine(s)
	}
}

// lastLines are the last lines written, oldest first.
func (l *lineWriter) lastLines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.tail...)
}
