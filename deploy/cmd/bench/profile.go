package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into file ("" : none) and returns what
// stops it.
func startProfile(file string) func() {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cpu profile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "cpu profile: %v\n", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
