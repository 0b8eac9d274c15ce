package system

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/libs/store"
)

// The all-in-one opens every service's database at once, ahead of the
// services: a damaged file still stops the start with the store's error, and
// every database opened for the other services (those that never started
// among them) is closed again (a later
// open of each, which waits for the file's lock, succeeds).
func TestDamagedDatabaseStopsTheStartAndClosesTheOthers(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"DATA_DIR": dir, "LOG_LEVEL": "error"}
	run := func() (Info, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var info Info
		err = Run(ctx, Options{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Listener: ln,
			OnReady: func(i Info) { info = i; cancel() }})
		return info, err
	}
	if info, err := run(); info.BaseURL == "" {
		t.Fatalf("the all-in-one did not start: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "db", "*.lungo"))
	if err != nil || len(files) < 2 {
		t.Fatalf("database files %v, %v", files, err)
	}
	damaged := filepath.Join(dir, "db", "catalog.lungo")
	if err := os.WriteFile(damaged, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := run()
	if info.BaseURL != "" || !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "catalog.lungo") {
		t.Fatalf("with catalog.lungo (the first service's) damaged: ready %v, err %v; want the start refused naming the file", info.BaseURL != "", err)
	}
	ctx := context.Background()
	for _, f := range files {
		if f == damaged {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".lungo")
		db, err := store.Open(ctx, store.Options{Name: name, DataDir: filepath.Dir(f)})
		if err != nil {
			t.Fatalf("%s after the refused start: %v (still open?)", name, err)
		}
		db.Close(ctx)
	}
}
