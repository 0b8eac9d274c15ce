package boltstore

import (
	"bytes"
	"context"
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's setting without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestHoldGCWhileOpening: while databases are being read the collector is
// off under a memory limit (which still bounds the heap), at openGCPercent
// without one, and given back as it was when the last open ends, not before.
func TestHoldGCWhileOpening(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	first := holdGC()
	if got := gcPercent(); got != openGCPercent {
		t.Fatalf("without a memory limit, GC percent during an open = %d, want %d", got, openGCPercent)
	}
	second := holdGC() // the all-in-one opens its services' files at once
	first()
	first() // a second call of one release changes nothing
	if got := gcPercent(); got != openGCPercent {
		t.Fatalf("one open of two ended: GC percent = %d, want %d until the last ends", got, openGCPercent)
	}
	second()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the opens: GC percent = %d, want 100 back", got)
	}

	debug.SetMemoryLimit(8 << 30)
	release := holdGC()
	if got := gcPercent(); got != -1 {
		t.Fatalf("with a memory limit, GC percent during an open = %d, want -1 (off, the limit bounds the heap)", got)
	}
	release()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the open: GC percent = %d, want 100 back", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(1000) // GOGC higher than the open's: kept
	release = holdGC()
	if got := gcPercent(); got != 1000 {
		t.Fatalf("GOGC=1000: GC percent during an open = %d, want 1000 kept", got)
	}
	release()
	debug.SetGCPercent(-1) // GOGC=off: kept off
	release = holdGC()
	if got := gcPercent(); got != -1 {
		t.Fatalf("GOGC=off: GC percent during an open = %d, want -1", got)
	}
	release()
	if got := gcPercent(); got != -1 {
		t.Fatalf("GOGC=off: GC percent after an open = %d, want -1", got)
	}
}

// TestOpenGivesTheCollectorBack: an open that read a file, and one that
// refused a damaged file while reading it, leave the collector as they found
// it.
func TestOpenGivesTheCollectorBack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ctx := context.Background()
	dir := t.TempDir()
	file := writeSome(t, dir)
	db := openDir(t, dir)
	if got := gcPercent(); got != 100 {
		t.Fatalf("after an open: GC percent = %d, want 100", got)
	}
	db.Close(ctx)
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(file, bytes.ReplaceAll(b, []byte("MARKER-VALUE"), []byte("MARKER-VALUF")), 0o600); err != nil {
		t.Fatal(err)
	}
	wantCorrupt(t, dir, "checksum mismatch")
	if got := gcPercent(); got != 100 {
		t.Fatalf("after an open refused while reading: GC percent = %d, want 100", got)
	}
}
