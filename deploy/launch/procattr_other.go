//go:build !unix

package launch

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
