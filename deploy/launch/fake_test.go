package launch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The tests run the launcher on stand-ins: BinDir holds links named after
// every program to this test binary, which, started with fakeEnv set, plays
// the program its name says (fakeMain). A stand-in records its arguments and
// environment, and when it stopped, under FAKE_RECORDS.
const fakeEnv = "LAUNCH_FAKE_PROGRAM"

// Settings of the stand-ins, passed in the programs' environment:
//
//	FAKE_RECORDS          directory of the records
//	FAKE_FAIL             a program that exits with status 3 at start
//	FAKE_FAIL_RESTARTS    a program whose every start after the first fails
//	FAKE_NEVER_READY      a program whose /readyz answers 503
//	FAKE_IGNORE_TERM      a program that ignores SIGTERM
type record struct {
	Name string            `json:"name"`
	Exe  string            `json:"exe"` // the binary started
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
	PID  int               `json:"pid"`
}

// fakeSettingsFile, in the stand-ins' BinDir, holds the FAKE_ settings too,
// for a program whose environment the launcher keeps to a few variables (the
// broker).
const fakeSettingsFile = "fake-settings.json"

// isFake reports whether this test binary was started as a stand-in: by the
// name of a program, through a link in a BinDir.
func isFake() bool {
	return os.Getenv(fakeEnv) == "1" || slices.Contains(programs, filepath.Base(os.Args[0]))
}

// fakeSetting is a FAKE_ setting of the environment, else of the settings file.
func fakeSetting(k string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	var settings map[string]string
	b, _ := os.ReadFile(filepath.Join(filepath.Dir(os.Args[0]), fakeSettingsFile))
	_ = json.Unmarshal(b, &settings)
	return settings[k]
}

// writeFakeSettings puts the FAKE_ settings of env in dir's settings file.
func writeFakeSettings(dir string, env map[string]string) error {
	settings := map[string]string{}
	for k, v := range env {
		if strings.HasPrefix(k, "FAKE_") {
			settings[k] = v
		}
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fakeSettingsFile), b, 0o600)
}

func fakeMain() int {
	name := filepath.Base(os.Args[0])
	dir := fakeSetting("FAKE_RECORDS")
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if name == "marketplace" && len(os.Args) > 1 {
		name = os.Args[1] // marketplace broker ...
	}
	b, _ := json.Marshal(record{Name: name, Exe: os.Args[0], Args: os.Args[1:], Env: env, PID: os.Getpid()})
	_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%d.json", name, os.Getpid())), b, 0o600)
	fmt.Printf(`{"msg":"fake %s started"}`+"\n", name)
	if fakeSetting("FAKE_FAIL") == name {
		fmt.Fprintf(os.Stderr, "%s: fake failure at start\n", name)
		return 3
	}
	if fakeSetting("FAKE_FAIL_RESTARTS") == name {
		marker := filepath.Join(dir, name+".started")
		if _, err := os.Stat(marker); err == nil {
			fmt.Fprintf(os.Stderr, "%s: fake failure on restart\n", name)
			return 4
		}
		_ = os.WriteFile(marker, nil, 0o600)
	}
	sigs := make(chan os.Signal, 1)
	if fakeSetting("FAKE_IGNORE_TERM") == name {
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	}
	var ln net.Listener
	var err error
	if name == "broker" {
		i := slices.Index(os.Args, "-port")
		ln, err = net.Listen("tcp", "127.0.0.1:"+os.Args[i+1])
		if err == nil {
			fmt.Fprintf(os.Stderr, "broker ready at %s\n", ln.Addr())
		}
	} else {
		ln, err = net.Listen("tcp", os.Getenv("HTTP_ADDR"))
		if err == nil {
			never := fakeSetting("FAKE_NEVER_READY") == name
			go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if never {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			}))
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	<-sigs
	ln.Close()
	f, err := os.OpenFile(filepath.Join(dir, "stops.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		fmt.Fprintln(f, name)
		f.Close()
	}
	return 0
}

// fakeBin makes a BinDir of stand-ins.
func fakeBin(t interface {
	TempDir() string
	Fatal(...any)
}, names []string) string {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Symlink(exe, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// records reads every record written so far, by program name (in start order
// of each program's runs).
func records(dir string) map[string][]record {
	out := map[string][]record{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r record
		if json.Unmarshal(b, &r) == nil {
			out[r.Name] = append(out[r.Name], r)
		}
	}
	return out
}

func stops(dir string) []string {
	b, _ := os.ReadFile(filepath.Join(dir, "stops.log"))
	return strings.Fields(string(b))
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func waitFor(ctx context.Context, cond func() bool) bool {
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}
