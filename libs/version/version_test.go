package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "marketplace/deploy", Version: "v0.0.0-20261125130000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-25T13:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := FromBuildInfo(bi, true)
	want := Info{Version: "v0.0.0-20261125130000-0123456789ab+dirty", Commit: "0123456789abcdef0123456789abcdef01234567",
		CommitTime: "2026-11-25T13:00:00Z", Modified: true, Go: "go1.26.8"}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if s := got.String(); !strings.Contains(s, "commit 0123456789abcdef") || !strings.Contains(s, "modified") {
		t.Errorf("String() = %q", s)
	}

	// A build without version control information, and no build info at all.
	bare := FromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}}, true)
	if bare != (Info{Version: "devel", Commit: Unknown, Go: "go1.26.8"}) {
		t.Errorf("bare build: %+v", bare)
	}
	if none := FromBuildInfo(nil, false); none.Version != "devel" || none.Commit != Unknown {
		t.Errorf("no build info: %+v", none)
	}
	// A commit given at link time (an image built without .git) fills in an
	// unknown one, never one Go recorded.
	if got := withStamp(bare, "fedcba98"); got.Commit != "fedcba98" {
		t.Errorf("stamped: %+v", got)
	}
	if got := withStamp(want, "fedcba98"); got.Commit != want.Commit {
		t.Errorf("the stamp replaced the recorded commit: %+v", got)
	}
	// This test binary: whatever Go recorded, Get agrees with ReadBuildInfo.
	if g := Get(); g != withStamp(FromBuildInfo(debug.ReadBuildInfo()), stampedCommit) || g.Go == "" {
		t.Errorf("Get() = %+v", g)
	}
}
