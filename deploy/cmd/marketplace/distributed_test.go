package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestRunDistributedArguments(t *testing.T) {
	env := map[string]string{"DB_EMBEDDED": "true", "DATA_DIR": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-broker-port", "70000"}, "-broker-port 70000 is not a port"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-bin", t.TempDir()}, "no binary"}, // nothing built there
		{[]string{"-bin-from", "customers"}, `want program=DIR, got "customers"`},
		{[]string{"-bin-from", "=dir"}, `want program=DIR`},
		{[]string{"-bin-from", "customers=a", "-bin-from", "customers=b"}, "customers given twice"},
		{[]string{"-bin-from", "customer=" + t.TempDir()}, `"customer", which is no program`},
	} {
		err := runDistributed(context.Background(), c.args, getenv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run-distributed %q: %v, want %q", c.args, err, c.want)
		}
	}
}
