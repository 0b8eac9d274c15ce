package launch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one program the launcher runs and restarts: its binary, arguments
// and environment, how it shows it is ready, and the programs it waits for.
type proc struct {
	name      string
	path      string
	args      []string
	env       []string
	readyURL  string // a GET that answers 200 once the program is ready; "" uses readyLine
	readyLine string // the prefix of a stderr line the program prints once ready
	deps      []*proc

	stdout, stderr *lineWriter
	firstReady     chan struct{} // closed the first time the program is ready
	done           chan struct{} // closed when supervision ends (stopped, or given up)

	mu        sync.Mutex
	cmd       *exec.Cmd
	running   bool
	lineReady chan struct{} // of the current run: closed on readyLine
	lineSeen  bool
	pid       int
	runs      int
	readyOnce sync.Once
	stopErr   error // how the program ended when the launcher stopped it
}

func newProc(out *output, name, path string, args, env []string) *proc {
	p := &proc{name: name, path: path, args: args, env: env, firstReady: make(chan struct{}), done: make(chan struct{})}
	p.stdout = &lineWriter{out: out, name: name}
	p.stderr = &lineWriter{out: out, name: name, onLine: p.sawLine}
	return p
}

func (p *proc) sawLine(s string) {
	if p.readyLine == "" || !strings.HasPrefix(s, p.readyLine) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.lineSeen && p.lineReady != nil {
		p.lineSeen = true
		close(p.lineReady)
	}
}

// supervisor is what a proc reports to and is tuned by.
type supervisor struct {
	log          func(format string, args ...any)
	fatal        func(error)
	startTimeout time.Duration
	restartDelay time.Duration
	stableAfter  time.Duration // up this long, a crash restarts after restartDelay again
	maxFailures  int           // restarts in a row that never became ready before giving up
	stopTimeout  time.Duration
}

// supervise waits for the programs p depends on, runs p, and restarts it
// whenever it exits until ctx is done. A first run that exits (or does not
// get ready) before it is ready is fatal: the launcher stops everything.
func (p *proc) supervise(ctx context.Context, s *supervisor) {
	defer close(p.done)
	for _, d := range p.deps {
		select {
		case <-d.firstReady:
		case <-ctx.Done():
			return
		}
	}
	delay, failures := s.restartDelay, 0
	for {
		upAt, err := p.runOnce(ctx, s)
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		runs := p.runs
		p.mu.Unlock()
		if upAt.IsZero() {
			why := fmt.Errorf("%s %s before it was ready: %w%s", p.name, verb(err), err, p.quoteTail())
			if runs == 1 {
				s.fatal(why)
				return
			}
			if failures++; failures >= s.maxFailures {
				s.fatal(fmt.Errorf("giving up on %s after %d restarts in a row that never got ready; last: %w", p.name, failures, why))
				return
			}
			delay = min(2*delay, 30*time.Second)
		} else {
			failures = 0
			if time.Since(upAt) >= s.stableAfter {
				delay = s.restartDelay
			} else if runs > 1 {
				delay = min(2*delay, 30*time.Second)
			}
		}
		s.log("%s exited (%v); restarting it in %s", p.name, exitText(err), delay)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
	}
}

func verb(err error) string {
	if errors.Is(err, errNotReadyInTime) {
		return "was stopped"
	}
	return "exited"
}

var errNotReadyInTime = errors.New("not ready in time")

// runOnce starts the program and waits until it exits; upAt is when it got
// ready (zero if it never did).
func (p *proc) runOnce(ctx context.Context, s *supervisor) (upAt time.Time, err error) {
	cmd := exec.Command(p.path, p.args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, p.stdout, p.stderr
	cmd.SysProcAttr = procAttr()
	lineReady := make(chan struct{})
	p.mu.Lock()
	if ctx.Err() != nil {
		p.mu.Unlock()
		return time.Time{}, ctx.Err()
	}
	p.lineReady, p.lineSeen = lineReady, false
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		s.fatal(fmt.Errorf("%s: %w", p.name, err)) // not executable: no restart helps
		<-ctx.Done()
		return time.Time{}, err
	}
	p.cmd, p.running, p.pid = cmd, true, cmd.Process.Pid
	p.runs++
	runs := p.runs
	p.mu.Unlock()
	if runs > 1 {
		s.log("%s restarted (pid %d)", p.name, cmd.Process.Pid)
	}

	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		p.stdout.flush()
		p.stderr.flush()
		p.mu.Lock()
		p.running = false
		p.mu.Unlock()
		exited <- err
	}()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	go func() {
		if p.waitReady(pctx, lineReady) == nil {
			close(ready)
		}
	}()
	timer := time.NewTimer(s.startTimeout)
	defer timer.Stop()
	select {
	case err := <-exited:
		return time.Time{}, err
	case <-timer.C:
		s.log("%s is not ready after %s; stopping it", p.name, s.startTimeout)
		_ = cmd.Process.Kill()
		<-exited
		return time.Time{}, errNotReadyInTime
	case <-ready:
	}
	upAt = time.Now()
	s.log("%s ready (pid %d)", p.name, cmd.Process.Pid)
	p.readyOnce.Do(func() { close(p.firstReady) }) // after the line: programs waiting for it start after it
	return upAt, <-exited
}

// waitReady returns once the program is ready, or with ctx's error.
func (p *proc) waitReady(ctx context.Context, lineReady <-chan struct{}) error {
	if p.readyURL == "" {
		select {
		case <-lineReady:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	hc := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.readyURL, nil)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal sends sig to the running program; false when it is not running.
func (p *proc) signal(sig os.Signal) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running {
		return false
	}
	return p.cmd.Process.Signal(sig) == nil
}

// stop ends the program (call after the supervision context is done): SIGTERM,
// and SIGKILL if it has not exited within the timeout.
func (p *proc) stop(s *supervisor) {
	p.mu.Lock()
	cmd, running := p.cmd, p.running
	p.mu.Unlock()
	if !running {
		<-p.done
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(s.stopTimeout):
		s.log("%s did not stop within %s; killing it", p.name, s.stopTimeout)
		_ = cmd.Process.Kill()
		<-p.done
		p.stopErr = fmt.Errorf("%s did not stop within %s and was killed", p.name, s.stopTimeout)
		return
	}
	if st := cmd.ProcessState; st != nil && !st.Success() && !diedOf(st, syscall.SIGTERM) {
		p.stopErr = fmt.Errorf("%s stopped with %s%s", p.name, st, p.quoteTail())
	}
}

// diedOf tells whether the process was ended by sig: a program that gets
// SIGTERM before it handles it (just started) stops as asked.
func diedOf(st *os.ProcessState, sig syscall.Signal) bool {
	ws, ok := st.Sys().(interface {
		Signaled() bool
		Signal() syscall.Signal
	})
	return ok && ws.Signaled() && ws.Signal() == sig
}

// exitText describes how a run ended.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// quoteTail is the program's last lines, for an error message (stderr, where
// programs print why they stopped; stdout when stderr is empty).
func (p *proc) quoteTail() string {
	lines := p.stderr.lastLines()
	if len(lines) == 0 {
		lines = p.stdout.lastLines()
	}
	if len(lines) == 0 {
		return ""
	}
	return "; its last lines:\n    " + strings.Join(lines, "\n    ")
}
