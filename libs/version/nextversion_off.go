//go:build !nextversion

package version

// NextVersion reports whether this binary is the simulated next release (the
// nextversion build tag; libs/ops and libs/events say what it adds).
const NextVersion = false

func nextRelease(c Contracts) Contracts { return c }
