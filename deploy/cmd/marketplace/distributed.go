package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"marketplace/deploy/launch"
)

// runDistributed runs the distributed mode on one machine (package launch):
// the broker, every service and the gateway as processes of their own
// binaries, found in -bin (default: beside this binary).
func runDistributed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("run-distributed")
	binDir := fs.String("bin", "", "the `DIR` of the binaries: marketplace, gateway and one per service (default: this binary's)")
	brokerPort := fs.Int("broker-port", 0, "the broker's `PORT` on 127.0.0.1 (0: any free port)")
	binFrom := map[string]string{}
	fs.Func("bin-from", "`program=DIR`: that program's binary from DIR instead of -bin (repeatable; e.g. customers=/tmp/old to run another version of it)", func(v string) error {
		name, dir, ok := strings.Cut(v, "=")
		if !ok || name == "" || dir == "" {
			return fmt.Errorf("want program=DIR, got %q", v)
		}
		if _, dup := binFrom[name]; dup {
			return fmt.Errorf("%s given twice", name)
		}
		binFrom[name] = dir
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run-distributed: unexpected arguments %q", fs.Args())
	}
	if *brokerPort < 0 || *brokerPort > 65535 {
		return fmt.Errorf("run-distributed: -broker-port %d is not a port", *brokerPort)
	}
	if *binDir == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("run-distributed: set -bin: %w", err)
		}
		*binDir = filepath.Dir(exe)
	}
	return launch.Run(ctx, launch.Options{
		BinDir: *binDir, BinFrom: binFrom, Getenv: getenv, Environ: os.Environ(), Stdout: stdout, BrokerPort: *brokerPort,
	})
}
