package system

import (
	"net"
	"strings"
	"testing"
)

// An HTTP_ADDR another program holds is refused naming the setting and how
// to run on another port; a free one is opened.
func TestListenHTTPOnATakenPortSaysHowToMove(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	ln, err := listenHTTP(addr)
	if err == nil {
		ln.Close()
		t.Fatalf("listenHTTP(%s) opened a taken port", addr)
	}
	for _, want := range []string{"address already in use", "another program listens on " + addr + " (HTTP_ADDR)", "HTTP_ADDR=127.0.0.1:8090 make run", "MARKETPLACE_URL="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q lacks %q", err, want)
		}
	}
	ln, err = listenHTTP("127.0.0.1:0")
	if err != nil {
		t.Fatalf("a free port: %v", err)
	}
	ln.Close()
}
