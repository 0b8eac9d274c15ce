//go:build unix && !linux

package launch

import "syscall"

// procAttr puts a program in its own process group, so a terminal's Ctrl-C
// reaches only the launcher, which stops the programs in order. (Only Linux
// can also tie a program's life to the launcher's.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
