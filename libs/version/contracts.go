package version

import (
	"fmt"
	"strconv"
	"strings"
)

// Contracts are the versions of the published contracts (contracts/ at the
// repository's root, CHANGELOG.md) a program implements: the public
// operations, the internal operations services call on each other, and the
// event payloads. Each is MAJOR.MINOR.PATCH; a change within one major is
// compatible (docs/adr/0085-contract-versions-and-changelog.md).
type Contracts struct {
	Public   string `json:"public"`
	Internal string `json:"internal"`
	Events   string `json:"events"`
}

// Legacy is what a program that declares no contract versions implements:
// every build before the declarations existed was built at the first
// published contracts.
var Legacy = Contracts{Public: "1.0.0", Internal: "1.0.0", Events: "1.0.0"}

// BuiltContracts are the contract versions this binary was built with: those
// of the snapshot its tree holds (contracts_gen.go, written by make
// contracts-accept from contracts/ACCEPTED), read at build time, never from
// a file at run time. A build with the nextversion tag declares the next
// minor of each (nextversion.go), as the compatible release it simulates
// would.
func BuiltContracts() Contracts { return nextRelease(accepted) }

// OrLegacy fills in the versions c leaves empty (a peer that declares none).
func (c Contracts) OrLegacy() Contracts {
	if c.Public == "" {
		c.Public = Legacy.Public
	}
	if c.Internal == "" {
		c.Internal = Legacy.Internal
	}
	if c.Events == "" {
		c.Events = Legacy.Events
	}
	return c
}

// Semver is a MAJOR.MINOR.PATCH version.
type Semver struct{ Major, Minor, Patch int }

// ParseSemver reads MAJOR.MINOR.PATCH (no prefix, no pre-release).
func ParseSemver(v string) (Semver, error) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return Semver{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || p != strconv.Itoa(x) {
			return Semver{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
		}
		n[i] = x
	}
	return Semver{n[0], n[1], n[2]}, nil
}

func (s Semver) String() string { return fmt.Sprintf("%d.%d.%d", s.Major, s.Minor, s.Patch) }

// nextMinor is v's next minor version (v itself when it cannot be read).
func nextMinor(v string) string {
	s, err := ParseSemver(v)
	if err != nil {
		return v
	}
	return Semver{s.Major, s.Minor + 1, 0}.String()
}
