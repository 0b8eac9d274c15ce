package distributed_test

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launched is `marketplace run-distributed` (what `make run-distributed`
// runs) as a process of its own.
type launched struct {
	cmd    *exec.Cmd
	lines  <-chan string // its output, line by line
	output func() string // all of its output so far
	exited chan struct{} // closed once it exited
}

// exitCode waits for the launcher to exit and returns its exit code.
func (l *launched) exitCode(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-l.exited:
		return l.cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("the launcher did not exit within %s", within)
	}
	return 0
}

func launcher(t *testing.T, env map[string]string) *launched {
	t.Helper()
	bin := binaries(t)
	cmd := exec.Command(filepath.Join(bin, "marketplace"), "run-distributed") // -bin defaults to the binary's own directory
	cmd.Env = environ(env)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 10000)
	logs := &logBuffer{}
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logs.Write([]byte(sc.Text() + "\n"))
			select {
			case ch <- sc.Text():
			default:
			}
		}
		close(ch)
	}()
	exited := make(chan struct{})
	go func() { cmd.Wait(); pw.Close(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("output:\n%s", lastLines(logs.String(), 100))
		}
	})
	return &launched{cmd: cmd, lines: ch, output: logs.String, exited: exited}
}

var readyPID = regexp.MustCompile(`^launch +\| (\S+) ready \(pid (\d+)\)$`)

// `marketplace run-distributed`: Ctrl-C (SIGINT) stops every program and the
// launcher exits 0; a program that fails at start makes it exit non-zero,
// saying which and why, and leaves nothing running.
func TestTheLauncherCommand(t *testing.T) {
	t.Run("SIGINT stops everything", func(t *testing.T) {
		l := launcher(t, testEnv(t))
		pids := map[string]int{}
		deadline := time.After(90 * time.Second)
	wait:
		for {
			select {
			case line, ok := <-l.lines:
				if !ok {
					t.Fatalf("the launcher ended before it was ready")
				}
				if m := readyPID.FindStringSubmatch(line); m != nil {
					pids[m[1]], _ = strconv.Atoi(m[2])
				}
				if strings.Contains(line, "| marketplace ready at http://127.0.0.1:") {
					break wait
				}
			case <-deadline:
				t.Fatal("no ready line within 90s")
			}
		}
		if _, sim := pids["processor"]; len(pids) != 12 || !sim {
			t.Fatalf("ready programs %v: want the broker, the processor simulator, 9 services and the gateway", pids)
		}
		if err := l.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code := l.exitCode(t, 60*time.Second); code != 0 {
			t.Fatalf("exit code %d after SIGINT", code)
		}
		for name, pid := range pids {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("%s (pid %d) still runs after the launcher exited: %v", name, pid, err)
			}
		}
		if out := l.output(); !strings.Contains(out, "stopping: the gateway, then the services, then the processor simulator and the broker") || !strings.Contains(out, "launch         | stopped") {
			t.Errorf("no orderly stop in the output")
		}
	})

	t.Run("a service failing at start", func(t *testing.T) {
		l := launcher(t, testEnv(t, "PAYOUTS_RELEASE_INTERVAL", "soon"))
		if code := l.exitCode(t, 90*time.Second); code != 1 {
			t.Fatalf("exit code %d, want 1", code)
		}
		out := l.output()
		if !strings.Contains(out, "marketplace: payouts exited before it was ready: exit status 1") || !strings.Contains(out, "PAYOUTS_RELEASE_INTERVAL") {
			t.Fatalf("the output does not say which program failed and why")
		}
		if strings.Contains(out, "marketplace ready at") {
			t.Fatal("the system said it was ready")
		}
		for _, l := range strings.Split(out, "\n") {
			if m := readyPID.FindStringSubmatch(l); m != nil {
				pid, _ := strconv.Atoi(m[2])
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("%s (pid %d) still runs", m[1], pid)
				}
			}
		}
	})
}
