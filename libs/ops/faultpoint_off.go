//go:build !faultpoints

package ops

// The fault points of keyed mutations (faultpoint.go): nothing outside the
// fault-point build.

func faultBeforeCommit(string) {}
func faultAfterCommit(string)  {}
