// Package version is what a binary knows of its own build: the version and
// the commit Go stamped into it (runtime/debug.ReadBuildInfo; `go build` in a
// git checkout records vcs.revision, vcs.time and vcs.modified unless
// -buildvcs=false). Every program logs it in its start line, serves it on
// GET /version of its own listener, and `marketplace version` prints it.
package version

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Unknown is the commit of a binary built without version control
// information (go test binaries, -buildvcs=false, a tree outside git).
const Unknown = "unknown"

// Info describes a build.
type Info struct {
	// Version is the main module's version as Go stamped it (a tag, or a
	// pseudo-version v0.0.0-<time>-<commit>[+dirty]), "devel" without one.
	Version string `json:"version"`
	// Commit is the full revision the binary was built from (Unknown when
	// not recorded).
	Commit string `json:"commit"`
	// CommitTime is the commit's time (RFC 3339), empty when not recorded.
	CommitTime string `json:"commitTime,omitempty"`
	// Modified is true when the working tree had uncommitted changes.
	Modified bool `json:"modified"`
	// Go is the toolchain that built it.
	Go string `json:"go"`
}

// FromBuildInfo reads an Info from what debug.ReadBuildInfo returned.
func FromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	info := Info{Version: "devel", Commit: Unknown}
	if !ok || bi == nil {
		return info
	}
	info.Go = bi.GoVersion
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				info.Commit = s.Value
			}
		case "vcs.time":
			info.CommitTime = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// stampedCommit is the commit given at link time, for builds without the
// repository (an image built from a context without .git):
//
//	go build -ldflags "-X marketplace/libs/version.stampedCommit=$(git rev-parse HEAD)"
//
// What Go recorded from version control wins over it.
var stampedCommit string

// Get is this binary's build, read once.
var Get = sync.OnceValue(func() Info { return withStamp(FromBuildInfo(debug.ReadBuildInfo()), stampedCommit) })

// withStamp is info with the link-time commit when Go recorded none.
func withStamp(info Info, stamped string) Info {
	if info.Commit == Unknown && stamped != "" {
		info.Commit = stamped
	}
	return info
}

// Attrs are the start line's attributes: version, commit and modified.
func (i Info) Attrs() []any {
	return []any{"version", i.Version, "commit", i.Commit, "modified", i.Modified}
}

// String is the human form, e.g. "devel (commit 0123abcd..., modified) go1.26.8".
func (i Info) String() string {
	mod := ""
	if i.Modified {
		mod = ", modified"
	}
	return fmt.Sprintf("%s (commit %s%s) %s", i.Version, i.Commit, mod, i.Go)
}
