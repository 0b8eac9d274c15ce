package distributed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/auth"
)

const (
	devSecret     = "distributed-test-dev-secret-0123456789"
	webhookSecret = "whsec_distributed_test"
)

var build struct {
	once sync.Once
	dir  string
	took time.Duration
	err  error
}

// TestMain removes the binaries built for the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// binaries builds every program of the distributed mode once per test run:
// the marketplace binary (the broker), the gateway and one per service, as
// `make run-distributed` does.
func binaries(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		start := time.Now()
		build.dir, build.err = os.MkdirTemp("", "marketplace-distributed-bin-")
		if build.err != nil {
			return
		}
		pkgs := []string{"./deploy/cmd/marketplace", "./deploy/cmd/gateway"}
		for _, n := range modules.Names() {
			pkgs = append(pkgs, "./services/"+n+"/cmd/"+n)
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go") // the toolchain this test was built with
		}
		// Without symbol tables and DWARF: linking eleven binaries is most of the
		// build's time.
		// -buildvcs=auto, as make does: the programs know their commit (GET /version).
		cmd := exec.Command(goBin, append([]string{"build", "-buildvcs=auto", "-ldflags=-s -w", "-o", build.dir + string(filepath.Separator)}, pkgs...)...)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil && strings.Contains(string(out), "buildvcs") {
			// git cannot read this checkout (e.g. another owner): build unstamped.
			cmd = exec.Command(goBin, append([]string{"build", "-buildvcs=false", "-ldflags=-s -w", "-o", build.dir + string(filepath.Separator)}, pkgs...)...)
			cmd.Dir, cmd.Env = filepath.Join("..", ".."), append(os.Environ(), "GOTOOLCHAIN=local")
			out, err = cmd.CombinedOutput()
		}
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		build.took = time.Since(start)
		t.Logf("binaries built in %s", build.took.Round(100*time.Millisecond))
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.dir
}

// logBuffer collects the launcher's merged output; a failing test prints it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testEnv is the environment of a test system: the launcher's settings and
// every program's base environment.
func testEnv(t *testing.T, extra ...string) map[string]string {
	env := map[string]string{
		"DATA_DIR": t.TempDir(), "HTTP_ADDR": "127.0.0.1:0", "DB_EMBEDDED": "true",
		"LOG_LEVEL": "warn", "ACCESS_LOG": "false", "RATE_LIMIT_RPS": "0",
		"AUTH_DEV_SECRET": devSecret, "PROCESSOR_WEBHOOK_SECRET": webhookSecret,
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// running is a started distributed system.
type running struct {
	*launch.System
	env  map[string]string
	bin  string // the directory of the marketplace binary (`make pay` runs it)
	log  *logBuffer
	hc   *http.Client
	stop func() error // stops the launcher and returns what Run returned
}

// start runs the launcher until the test ends, on the binaries built from
// this checkout unless adjust sets BinDir.
func start(t *testing.T, env map[string]string, adjust ...func(*launch.Options)) *running {
	t.Helper()
	logs := &logBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *launch.System, 1)
	done := make(chan error, 1)
	o := launch.Options{
		Getenv: func(k string) string { return env[k] }, Environ: environ(env), Stdout: logs,
		OnReady: func(s *launch.System) { ready <- s },
	}
	for _, f := range adjust {
		f(&o)
	}
	if o.BinDir == "" {
		o.BinDir = binaries(t)
	}
	began := time.Now()
	go func() { done <- launch.Run(ctx, o) }()
	r := &running{env: env, bin: o.BinDir, log: logs, hc: &http.Client{Timeout: 20 * time.Second}}
	if d, ok := o.BinFrom["marketplace"]; ok {
		r.bin = d
	}
	var stopped bool
	var runErr error
	r.stop = func() error {
		if !stopped {
			stopped = true
			r.hc.CloseIdleConnections()
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(60 * time.Second):
				runErr = fmt.Errorf("the launcher did not stop within 60s")
			}
		}
		return runErr
	}
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("launcher: %v", err)
		}
		if t.Failed() {
			t.Logf("launcher output (last 150 lines):\n%s", lastLines(logs.String(), 150))
		}
	})
	select {
	case r.System = <-ready:
		t.Logf("distributed system ready in %s", time.Since(began).Round(10*time.Millisecond))
	case err := <-done:
		cancel()
		t.Fatalf("the distributed system did not start: %v\n%s", err, lastLines(logs.String(), 80))
	case <-time.After(90 * time.Second):
		t.Fatalf("the distributed system did not start within 90s\n%s", lastLines(logs.String(), 80))
	}
	return r
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (r *running) token(t *testing.T, sub string, roles ...string) string {
	t.Helper()
	tok, err := auth.Mint([]byte(r.DevSecret), sub, roles, time.Hour, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// answer is one HTTP exchange with the gateway.
type answer struct {
	status int
	body   []byte
	header http.Header
	took   time.Duration
	err    error // transport error (a hang shows as the client's timeout)
}

func (a answer) String() string {
	if a.err != nil {
		return fmt.Sprintf("error after %s: %v", a.took, a.err)
	}
	return fmt.Sprintf("%d %s", a.status, strings.TrimSpace(string(a.body)))
}

// do sends a request to the gateway; it never fails the test (goroutines use it).
func (r *running) do(method, path string, body []byte, headers map[string]string) answer {
	req, err := http.NewRequest(method, r.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	began := time.Now()
	resp, err := r.hc.Do(req)
	if err != nil {
		return answer{err: err, took: time.Since(began)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: b, header: resp.Header, took: time.Since(began), err: err}
}

func (r *running) op(kind, token, path string, args any) answer {
	b, _ := json.Marshal(map[string]any{"path": path, "args": args})
	h := map[string]string{"Content-Type": "application/json"}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return r.do(http.MethodPost, "/api/"+kind, b, h)
}

// must calls an operation that has to succeed and decodes its result into out.
func (r *running) must(t *testing.T, kind, token, path string, args, out any) {
	t.Helper()
	a := r.op(kind, token, path, args)
	if a.err != nil || a.status != http.StatusOK {
		t.Fatalf("%s: %s", path, a)
	}
	if out != nil {
		if err := json.Unmarshal(a.body, out); err != nil {
			t.Fatalf("%s: decode %s: %v", path, a.body, err)
		}
	}
}

// errorCode is the code of an operation's error body.
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}
