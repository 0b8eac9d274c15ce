package system

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// A live processor key without PROCESSOR_API_URL would be handed to the
// simulator, whose payments no card pays: the all-in-one refuses to start,
// saying what to set.
func TestLiveKeysNeedTheProcessorURL(t *testing.T) {
	for _, env := range []map[string]string{
		{"PROCESSOR_SECRET_KEY": "sk_live_123"},
		{"PROCESSOR_SECRET_KEY": "rk_live_123"},
		{"PROCESSOR_PUBLISHABLE_KEY": "pk_live_123"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		ready := false
		err = Run(ctx, Options{Getenv: func(k string) string { return env[k] }, Memory: true, Stdout: io.Discard, Listener: ln, OnReady: func(Info) { ready = true; cancel() }})
		cancel()
		if ready || err == nil || !strings.Contains(err.Error(), "live key") || !strings.Contains(err.Error(), "PROCESSOR_API_URL") {
			t.Errorf("%v: started %v, err %v", env, ready, err)
		}
	}
}
