package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// The restart alone (row g8, issue 22's "Start time"), repeated on the same
// large database without filling it again: -growth-keep keeps a copy of the
// database make bench-engine filled (taken after the copies, before the timed
// restart), and -restart-from times starts of the all-in-one on fresh copies
// of it, one after the other.
var (
	growthKeep     = flag.String("growth-keep", "", "with -engine-growth: keep a copy of the large database's DATA_DIR (as it was before the timed restart) in this directory")
	restartHeap    = flag.String("restart-heapprofile", "", "with -restart-from: write a heap profile after each start (and a collection) to this file, .N appended")
	restartFrom    = flag.String("restart-from", "", "only time starts of the all-in-one on copies of this DATA_DIR (one kept by -growth-keep), -restart-n times")
	restartN       = flag.Int("restart-n", 3, "starts timed by -restart-from")
	restartLogging = flag.Bool("restart-log", false, "with -restart-from: the all-in-one's info log to stderr (each database's open, with its timings)")
)

// copyTree copies the regular files and directories under src into dst.
func copyTree(dst, src string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// gcCPU is the CPU time the garbage collector used so far.
func gcCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// benchRestarts times -restart-n starts on copies of -restart-from: wall time
// to ready, the process's CPU time and the GC's share of it.
func benchRestarts() error {
	fmt.Printf("restart: load average %s\n", loadAvg())
	for i := 0; i < *restartN; i++ {
		dir, err := os.MkdirTemp("", "bench-restart")
		if err != nil {
			return err
		}
		if err := copyTree(dir, *restartFrom); err != nil {
			os.RemoveAll(dir)
			return err
		}
		env := growthEnv(dir)
		if *restartLogging {
			env["LOG_LEVEL"] = "info"
		}
		stopProfile := func() {}
		if *restartProfile != "" {
			stopProfile = startProfile(fmt.Sprintf("%s.%d", *restartProfile, i))
		}
		c0, g0 := cpuTime(), gcCPU()
		out := io.Discard
		if *restartLogging {
			out = os.Stderr
		}
		s, took, err := launchTo(env, false, out)
		c1, g1 := cpuTime(), gcCPU()
		stopProfile()
		if err != nil {
			os.RemoveAll(dir)
			return err
		}
		// The collection of what the start left, which a start may leave
		// until after ready, counted too.
		runtime.GC()
		c2 := cpuTime()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if *restartHeap != "" {
			if f, err := os.Create(fmt.Sprintf("%s.%d", *restartHeap, i)); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		s.stop()
		os.RemoveAll(dir)
		fmt.Printf("restart %d: ready in %v, CPU %v (GC %v); with a collection after ready %v; heap in use %d MB, live %d MB\n", i+1, took.Round(time.Millisecond),
			(c1 - c0).Round(time.Millisecond), (g1 - g0).Round(time.Millisecond), (c2 - c0).Round(time.Millisecond), m.HeapInuse>>20, m.HeapAlloc>>20)
	}
	fmt.Printf("restart: load average %s\n", loadAvg())
	return nil
}
