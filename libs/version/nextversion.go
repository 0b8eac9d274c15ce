//go:build nextversion

package version

// NextVersion reports whether this binary is the simulated next release (the
// nextversion build tag; libs/ops and libs/events say what it adds).
const NextVersion = true

// nextRelease declares the next minor of each contract: the build adds an
// optional answer field, payload field and internal argument, which a real
// release would publish as a compatible (minor) change.
func nextRelease(c Contracts) Contracts {
	return Contracts{Public: nextMinor(c.Public), Internal: nextMinor(c.Internal), Events: nextMinor(c.Events)}
}
