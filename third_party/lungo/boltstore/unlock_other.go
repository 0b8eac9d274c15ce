//go:build !unix

package boltstore

import "os"

// release closes a file bbolt opened.
func release(f *os.File) { _ = f.Close() }
