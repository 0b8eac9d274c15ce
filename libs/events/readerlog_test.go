package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// A reader's poll that times out (a read deadline passing on its
// connection, as kafka-go reports it) is debug, as are its own
// cancellation and the broker's RequestTimedOut; a broker that cannot be
// reached, refuses the connection, or answers another error stays a warning.
func TestReaderReportLevel(t *testing.T) {
	// A real read timeout on a real connection: the error kafka-go's reader
	// gets when its fetch deadline passes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, readTimeout := conn.Read(make([]byte, 1))
	if readTimeout == nil {
		t.Fatal("the read did not time out")
	}
	const unknown = "the kafka reader got an unknown error reading partition %d of %s at offset %d: %s"
	const initializing = "error initializing the kafka reader for partition %d of %s: %s"
	dialTimeout := &net.OpError{Op: "dial", Net: "tcp", Err: &timeoutErr{}}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		name string
		msg  string
		args []any
		want slog.Level
	}{
		{"read deadline passed", unknown, []any{0, "orders", 12, readTimeout}, slog.LevelDebug},
		{"read deadline, wrapped", initializing, []any{0, "orders", fmt.Errorf("fetch: %w", readTimeout)}, slog.LevelDebug},
		{"context deadline", "%v", []any{context.DeadlineExceeded}, slog.LevelDebug},
		{"broker's RequestTimedOut", initializing, []any{1, "orders", kafka.RequestTimedOut}, slog.LevelDebug},
		{"timeout formatted into the message", "failed to read: " + readTimeout.Error(), nil, slog.LevelDebug},
		{"reader closing", "%v", []any{context.Canceled}, slog.LevelDebug},
		{"broker unreachable (dial timeout)", initializing, []any{0, "orders", dialTimeout}, slog.LevelWarn},
		{"connection refused", initializing, []any{0, "orders", refused}, slog.LevelWarn},
		{"unexpected EOF", unknown, []any{0, "orders", 3, errors.New("unexpected EOF")}, slog.LevelWarn},
		{"broker error", "%v", []any{kafka.UnknownTopicOrPartition}, slog.LevelWarn},
		{"offset out of range", "the kafka reader is reading passed the last offset for partition %d of %s at offset %d", []any{0, "orders", 9}, slog.LevelWarn},
	} {
		if got := readerReportLevel(c.msg, c.args); got != c.want {
			t.Errorf("%s: %q is %v, want %v", c.name, fmt.Sprintf(c.msg, c.args...), got, c.want)
		}
	}
}

type timeoutErr struct{}

func (*timeoutErr) Error() string   { return "i/o timeout" }
func (*timeoutErr) Timeout() bool   { return true }
func (*timeoutErr) Temporary() bool { return true }
