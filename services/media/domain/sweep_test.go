package domain

import (
	"testing"
	"time"
)

// TestSweepOfAbandonedUploads: an upload nothing claimed is deleted once the
// grace after its upload has passed, not at it nor before; a claimed one
// never; a pending one (a crash left it) after PendingGrace, a stored one
// never as pending. The unclaimed sweep runs first.
func TestSweepOfAbandonedUploads(t *testing.T) {
	const grace = 24 * time.Hour
	sweeps := Abandonments(t0, grace)
	if len(sweeps) != 2 || sweeps[0].Pending || !sweeps[1].Pending ||
		sweeps[0].Before != t0.Add(-grace).UnixMilli() || sweeps[1].Before != t0.Add(-PendingGrace).UnixMilli() {
		t.Fatalf("sweeps %+v", sweeps)
	}
	if PendingGrace != time.Hour {
		t.Fatalf("PendingGrace %s", PendingGrace)
	}
	at := func(d time.Duration) int64 { return t0.Add(-d).UnixMilli() }
	cases := []struct {
		name             string
		u                Upload
		unclaimed, stale bool
	}{
		{"unclaimed, past the grace", Upload{State: StateStored, CreatedAt: at(grace + time.Millisecond)}, true, false},
		{"unclaimed, exactly the grace", Upload{State: StateStored, CreatedAt: at(grace)}, false, false},
		{"unclaimed, within the grace", Upload{State: StateStored, CreatedAt: at(grace - time.Minute)}, false, false},
		{"claimed, long ago", Upload{State: StateStored, Referenced: true, CreatedAt: at(100 * grace)}, false, false},
		{"pending, past its grace", Upload{State: StatePending, CreatedAt: at(PendingGrace + time.Millisecond)}, false, true},
		{"pending, exactly its grace", Upload{State: StatePending, CreatedAt: at(PendingGrace)}, false, false},
		{"pending, streaming", Upload{State: StatePending, CreatedAt: at(time.Minute)}, false, false},
		{"pending, past both", Upload{State: StatePending, CreatedAt: at(2 * grace)}, true, true},
		{"stored, past the pending grace", Upload{State: StateStored, CreatedAt: at(2 * PendingGrace)}, false, false},
	}
	for _, c := range cases {
		if got := sweeps[0].Abandons(&c.u); got != c.unclaimed {
			t.Errorf("%s: unclaimed sweep %v", c.name, got)
		}
		if got := sweeps[1].Abandons(&c.u); got != c.stale {
			t.Errorf("%s: pending sweep %v", c.name, got)
		}
	}
}

// TestLegacyFileAdopted: a file of the old GridFS bucket becomes a stored
// upload with its metadata, claimed since its upload, so never swept.
func TestLegacyFileAdopted(t *testing.T) {
	var f LegacyFile
	f.ID, f.Length = "stg_legacy", 42
	f.Metadata.UploadedBy, f.Metadata.ContentType, f.Metadata.SHA256, f.Metadata.UploadedAt = "old-user", "image/gif", "ab", 1700000000000
	u := f.Adopted()
	want := Upload{ID: "stg_legacy", UploadedBy: "old-user", ContentType: "image/gif", Size: 42, SHA256: "ab", CreatedAt: 1700000000000,
		State: StateStored, Referenced: true, ReferencedAt: 1700000000000}
	if u != want {
		t.Fatalf("adopted %+v", u)
	}
	for _, a := range Abandonments(t0, time.Minute) {
		if a.Abandons(&u) {
			t.Fatalf("an adopted upload is swept by %+v", a)
		}
	}
}
