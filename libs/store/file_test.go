package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// The file store itself (records, checksums, counts, indexes, natural order,
// group commit, migration, damaged files) is tested in its own package,
// third_party/lungo/boltstore. Here: what the database adds around it.

func openDir(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Name: "svc", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// writeSome makes a database with a recognisable document and closes it.
func writeSome(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	db := openDir(t, dir)
	if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "marked", "v": "MARKER-VALUE", "pad": strings.Repeat("p", 200)}); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	return filepath.Join(dir, "svc.lungo")
}

// A damaged file stops Open with ErrCorrupt, the file store's account of
// what is wrong and the way out; a file emptied (truncated to nothing) whose
// marker says it held data is damaged too, not a new database.
func TestDamagedFileIsRefusedWithTheWayOut(t *testing.T) {
	wantCorrupt := func(t *testing.T, dir string, says ...string) {
		t.Helper()
		_, err := Open(context.Background(), Options{Name: "svc", DataDir: dir, Service: "things"})
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("want ErrCorrupt, got %v", err)
		}
		says = append(says, "Nothing was changed in the file", "start things with an empty database on purpose with DB_START_EMPTY=things")
		for _, s := range says {
			if !strings.Contains(err.Error(), s) {
				t.Fatalf("the error does not say %q: %v", s, err)
			}
		}
	}
	t.Run("corrupt record", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		b, _ := os.ReadFile(file)
		if err := os.WriteFile(file, bytes.ReplaceAll(b, []byte("MARKER-VALUE"), []byte("MARKER-VALUF")), 0o600); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "svc.things", `"marked"`, "checksum mismatch")
	})
	t.Run("emptied", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		if err := os.Truncate(file, 0); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "svc.lungo is empty")
	})
}

// lungo's own file format, written before the bbolt store, is migrated on
// first open (boltstore's tests: the data, the old file kept), and the
// marker rules hold for the new file.
func TestOldFormatFileIsMigratedWithItsMarker(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "svc.lungo")
	client, engine, err := lungo.Open(ctx, lungo.Options{Store: lungo.NewFileStore(file, 0o600)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Database("svc").Collection("orders").InsertOne(ctx, bson.M{"_id": "o1"}); err != nil {
		t.Fatal(err)
	}
	engine.Close()
	db := openDir(t, dir)
	if _, err := os.Stat(file + ".old-format"); err != nil {
		t.Fatalf("not migrated: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "svc.created")); err != nil {
		t.Fatalf("no marker: %v", err)
	}
	if err := db.Collection("orders").FindOne(ctx, bson.M{"_id": "o1"}).Err(); err != nil {
		t.Fatalf("the migrated document: %v", err)
	}
	db.Close(ctx)
}

// The child of TestKilledWhileWriting: writers in a loop, printing each commit
// once it returned.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("STORE_CRASH_CHILD_DIR")
	if dir == "" {
		t.Skip("run by TestKilledWhileWriting")
	}
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", DataDir: dir})
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(3)
	}
	round := os.Getenv("STORE_CRASH_CHILD_ROUND")
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	for w := range 4 {
		go func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("r%s-w%d-%d", round, w, i)
				err := db.Tx(ctx, func(ctx context.Context) error {
					// A few kilobytes, so commits span pages.
					if _, err := db.Collection("items").InsertOne(ctx, bson.M{"_id": id, "w": w, "pad": strings.Repeat("x", 1000*(1+i%5))}); err != nil {
						return err
					}
					_, err := db.Collection("counters").UpdateOne(ctx, bson.M{"_id": w}, bson.M{"$inc": bson.M{"n": 1}}, options.Update().SetUpsert(true))
					return err
				})
				if err == nil && i%7 == 3 {
					err = db.Tx(ctx, func(ctx context.Context) error {
						if _, err := db.Collection("items").DeleteOne(ctx, bson.M{"_id": id}); err != nil {
							return err
						}
						_, err := db.Collection("counters").UpdateOne(ctx, bson.M{"_id": w}, bson.M{"$inc": bson.M{"n": -1}})
						return err
					})
					id = "-" + id
				}
				mu.Lock()
				if err != nil {
					fmt.Fprintln(out, "error", err)
				} else {
					fmt.Fprintln(out, id)
				}
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	select {}
}

// A process killed (SIGKILL) while it commits loses nothing it acknowledged,
// and reopens without error; three rounds on the same file.
func TestKilledWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	acked := map[string]bool{}
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORE_CRASH_CHILD_DIR="+dir, "STORE_CRASH_CHILD_ROUND="+strconv.Itoa(round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		n := 0
		killAt := 60 + round*40
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "error"), strings.HasPrefix(line, "open failed"):
				_ = cmd.Process.Kill()
				t.Fatalf("round %d: child: %s", round, line)
			case strings.HasPrefix(line, "-"):
				acked[line[1:]] = false // acknowledged deleted
			case strings.HasPrefix(line, "r"):
				acked[line] = true
			default:
				continue
			}
			if n++; n == killAt {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		_ = cmd.Wait()
		if n < killAt {
			t.Fatalf("round %d: the child stopped after %d commits", round, n)
		}

		db, err := Open(ctx, Options{Name: "svc", DataDir: dir})
		if err != nil {
			t.Fatalf("round %d: reopening after the kill: %v", round, err)
		}
		for id, present := range acked {
			err := db.Collection("items").FindOne(ctx, bson.M{"_id": id}).Err()
			if present && err != nil {
				t.Fatalf("round %d: acknowledged %s is missing: %v", round, id, err)
			}
			if !present && !IsNotFound(err) {
				t.Fatalf("round %d: acknowledged deletion of %s undone: %v", round, id, err)
			}
		}
		// Each commit was whole: the counters match the items.
		for w := range 4 {
			var c struct{ N int64 }
			if err := db.Collection("counters").FindOne(ctx, bson.M{"_id": w}).Decode(&c); err != nil {
				t.Fatal(err)
			}
			items, _ := db.Collection("items").CountDocuments(ctx, bson.M{"w": w})
			if c.N != items {
				t.Fatalf("round %d: writer %d: counter %d, items %d", round, w, c.N, items)
			}
		}
		db.Close(ctx)
	}
}

// The database acknowledges a write only once the file store has it on
// disk: a transaction at its end, a write outside one before it answers
// (boltstore.Durable). With the store's writer stopped, neither is
// acknowledged: each gives up at its context's end and says the write was
// made but is not known to be on disk.
func TestWritesWaitForTheDisk(t *testing.T) {
	ctx := context.Background()
	db := openDir(t, t.TempDir())
	defer db.Close(ctx)
	c := db.Collection("a")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "kept"}); err != nil {
		t.Fatal(err)
	}
	if err := db.fileSt.Close(); err != nil { // no commit reaches the disk from here on
		t.Fatal(err)
	}
	const unconfirmed = "not yet known to be on disk"
	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		t.Cleanup(cancel)
		return c
	}
	err := db.Tx(short(), func(ctx context.Context) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": "in-a-transaction"})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), unconfirmed) {
		t.Errorf("a transaction the disk did not take: %v, want %q", err, unconfirmed)
	}
	if _, err := c.InsertOne(short(), bson.M{"_id": "outside"}); err == nil || !strings.Contains(err.Error(), unconfirmed) {
		t.Errorf("an insert outside a transaction the disk did not take: %v, want %q", err, unconfirmed)
	}
	if _, err := c.UpdateOne(short(), bson.M{"_id": "kept"}, bson.M{"$set": bson.M{"v": 1}}); err == nil || !strings.Contains(err.Error(), unconfirmed) {
		t.Errorf("an update outside a transaction the disk did not take: %v, want %q", err, unconfirmed)
	}
}
