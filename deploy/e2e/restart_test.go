package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/processor"
	"marketplace/deploy/system"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"

	st "marketplace/deploy/systemtest"
)

// TestDataSurvivesARestart runs the all-in-one on files, as `make run` does, stops
// it and starts it again on the same DATA_DIR: records and the development secret
// (so existing tokens) are still there.
func TestDataSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	var token, cityID string
	var firstCustomers events.Brokers
	t.Run("first run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		token = s.Token("admin-1", "admin")
		st.MustOK(t, s.Mutation(token, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"})).Decode(t, &cityID)
		firstCustomers = s.KafkaAs("customers")
		noKafkaUsersOnDisk(t, dir)
	})
	noKafkaUsersOnDisk(t, dir)
	t.Run("second run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		noKafkaUsersOnDisk(t, dir)
		// The Kafka users are each run's: the first run's password is
		// refused, and the ACLs hold the new users as they held the old.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		old := firstCustomers
		old.Addrs = s.KafkaAs("customers").Addrs // the port is each start's
		if err := old.Check(ctx, "test"); !errors.Is(err, events.ErrBrokerRefused) {
			t.Errorf("the first run's customers user after a restart: %v, want refused", err)
		}
		if err := eventstest.Write(ctx, s.KafkaAs("reviews"), customers.TopicOrders, st.ProbeEvent("reviews")); !eventstest.Refused(err) {
			t.Errorf("reviews' user wrote on orders after a restart: %v, want refused", err)
		}
		if err := eventstest.Write(ctx, s.KafkaAs("customers"), customers.TopicOrders, st.ProbeEvent("customers")); err != nil {
			t.Errorf("customers' user on orders after a restart: %v", err)
		}
		var cities []map[string]any
		st.MustOK(t, s.Query(token, "catalog.locations.listCities", nil)).Decode(t, &cities)
		if len(cities) != 1 || cities[0]["_id"] != cityID || cities[0]["name"] != "Dubai" {
			t.Fatalf("after restart: %v", cities)
		}
		st.Expect(t, s.Mutation(token, "admins.catalog.createCity", map[string]any{"name": "dubai", "nameArabic": "x"}), "ALREADY_EXISTS")
	})
}

// noKafkaUsersOnDisk fails if the embedded broker's data directory holds its
// users or ACLs (kfake's sasl.json, acls.json): they are each start's, and a
// SCRAM user's salted password saved there is enough to authenticate as it.
func noKafkaUsersOnDisk(t *testing.T, dataDir string) {
	t.Helper()
	for _, f := range []string{"sasl.json", "acls.json"} {
		if _, err := os.Stat(filepath.Join(dataDir, "kafka", f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("kafka/%s in the data directory: %v", f, err)
		}
	}
}

// TestLocalWebhookSecret: without PROCESSOR_WEBHOOK_SECRET the all-in-one keeps a
// development secret in DATA_DIR; what `make sign-webhook` signs with it is
// accepted, and it stays the same across restarts.
func TestLocalWebhookSecret(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "DATA_DIR" {
			return dir
		}
		return ""
	}
	var first string
	for run := 0; run < 2; run++ {
		// One system at a time on the data directory (a subtest stops it):
		// its database files are locked by the process that has them open.
		t.Run(fmt.Sprintf("run %d", run), func(t *testing.T) {
			s := st.Start(t, st.WithDataDir(dir), st.WithEnv("PROCESSOR_WEBHOOK_SECRET", ""))
			secret, err := system.WebhookSecret(getenv)
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = secret
			} else if secret != first {
				t.Fatal("the development webhook secret changed across a restart")
			}
			body := []byte(`{"id":"evt_local","type":"customer.created","data":{"object":{"id":"cus_1"}}}`)
			r := s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{"processor-signature": processor.Sign(secret, body, time.Now())})
			if r.Status != 200 || r.Map(t)["eventType"] != "customer.created" {
				t.Fatalf("run %d: %d %s", run, r.Status, r.Body)
			}
			r = s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{"processor-signature": processor.Sign("whsec_other", body, time.Now())})
			if r.Status != 400 {
				t.Fatalf("run %d: a body signed with another secret answered %d", run, r.Status)
			}
		})
	}
}

// TestLostDatabaseFileIsRefused: a service whose database file is missing while
// the data directory shows it ran before does not start as an empty database
// (its profiles and orders would vanish while other services still refer to
// them); DB_START_EMPTY=customers starts it empty on purpose.
func TestLostDatabaseFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Run("first run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		okID(t, s.Mutation(s.Token("user-1"), "customers.profile.upsertMyProfile", map[string]any{"name": "Noor"}))
	})
	if err := os.Remove(filepath.Join(dir, "db", "customers.lungo")); err != nil {
		t.Fatal(err)
	}
	t.Run("the next start is refused", func(t *testing.T) {
		env := map[string]string{"DATA_DIR": dir, "LOG_LEVEL": "error", "PROCESSOR_WEBHOOK_SECRET": st.WebhookSecret}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = system.Run(ctx, system.Options{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Listener: ln,
			OnReady: func(system.Info) { t.Error("the system became ready without the customers database") }})
		if err == nil || !strings.Contains(err.Error(), "customers.lungo is missing") || !strings.Contains(err.Error(), "DB_START_EMPTY=customers") {
			t.Fatalf("start with a lost database file: %v", err)
		}
	})
	t.Run("started empty on purpose", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir), st.WithEnv("DB_START_EMPTY", "customers"))
		if r := st.MustOK(t, s.Query(s.Token("user-1"), "customers.profile.getMyProfile", nil)); string(r.Body) != "null" {
			t.Fatalf("profile after starting empty: %s", r.Body)
		}
	})
}
