//go:build tools

// Package tools pins the oasdiff command that `make contracts-check` runs
// (built with GOWORK=off: go build -o ../../bin/oasdiff github.com/oasdiff/oasdiff).
package tools

import _ "github.com/oasdiff/oasdiff"
