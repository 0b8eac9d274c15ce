package gateway

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/logtest"
)

// TestLongOperationPathIsNeitherEchoedNorLogged: a body's path much longer
// than any operation's (the body may be 6 MiB) is an unknown operation, as
// any other, but its answer and the access line quote at most a little of
// it: echoed whole, one anonymous request a second wrote megabytes to the
// log (op=<the path>) and sent them back.
func TestLongOperationPathIsNeitherEchoedNorLogged(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	logs := &logtest.Buffer{}
	v, _ := auth.NewHS256(secret, auth.Options{})
	g := New(Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}), v, slog.New(slog.DiscardHandler))
	gw := serveGateway(t, g, slog.New(slog.NewJSONHandler(logs, nil)))

	long := "fake.things." + strings.Repeat("x", 900<<10)
	st, body, _ := post(t, gw, "query", `{"path":"`+long+`","args":{}}`)
	if st != 404 || !strings.Contains(body, `"reason":"unknown_operation"`) {
		t.Errorf("a 900 KiB path: %d %.300s", st, body)
	}
	if len(body) > 2048 {
		t.Errorf("the answer to a 900 KiB path is %d bytes: it echoes the path", len(body))
	}
	time.Sleep(100 * time.Millisecond) // the access line is written once the answer is
	if n := len(logs.String()); n > 8192 {
		t.Errorf("the log of one request with a 900 KiB path is %d bytes: it holds the path", n)
	}
	// A near miss still gets its suggestion.
	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.ecoh"}`); st != 404 || !strings.Contains(body, `"suggestions":["fake.things.echo"`) {
		t.Errorf("a near miss: %d %s", st, body)
	}
}
