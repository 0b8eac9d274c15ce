package launch

import "syscall"

// procAttr puts a program in its own process group, so a terminal's Ctrl-C
// reaches only the launcher, which stops the programs in order; and has the
// kernel send it SIGTERM if the launcher itself dies (even by SIGKILL), so no
// program outlives it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
