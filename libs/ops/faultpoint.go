//go:build faultpoints

package ops

import (
	"os"
	"strings"
	"syscall"
)

// Fault points of keyed mutations, in the fault-point build only (go build
// -tags faultpoints; crash tests of a real process): MARKETPLACE_FAULT set to
// "before-commit:<operation path>" kills the process (SIGKILL) inside the
// run's transaction, its effects and outcome written but not committed;
// "after-commit:<operation path>" kills it once they are committed and
// durable, before the answer is sent.

var fault = os.Getenv("MARKETPLACE_FAULT")

func faultBeforeCommit(path string) { faultAt("before-commit", path) }
func faultAfterCommit(path string)  { faultAt("after-commit", path) }

func faultAt(point, path string) {
	if where, op, ok := strings.Cut(fault, ":"); ok && where == point && op == path {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal ends the process
	}
}
