package events_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
)

func scram(user, pw string) events.Credentials {
	return events.Credentials{Mechanism: events.SASLScramSHA512, Username: user, Password: pw}
}

func topicACLs(name string, ops ...string) []events.ACL {
	var out []events.ACL
	for _, op := range ops {
		out = append(out, events.ACL{Resource: events.ResourceTopic, Name: name, Operation: op})
	}
	return out
}

// The embedded broker holds each user to its ACLs: a user writes only the
// topics it may write, reads only those it may read, joins only the groups
// it may (literal or by prefix), and a user without ACLs may do nothing; the
// superuser may do everything. A restart on the same data directory holds
// the users to that start's ACLs, not to those an earlier start saved.
func TestBrokerHoldsUsersToTheirACLs(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin := scram("admin", "admin-password")
	writer := events.ACLUser{Credentials: scram("writer", "writer-password"), ACLs: topicACLs("orders", events.OpWrite)}
	reader := events.ACLUser{Credentials: scram("reader", "reader-password"), ACLs: append(topicACLs("orders", events.OpRead),
		events.ACL{Resource: events.ResourceGroup, Name: "reader", Operation: events.OpRead},
		events.ACL{Resource: events.ResourceGroup, Name: "reader.", Prefix: true, Operation: events.OpRead})}
	nobody := events.ACLUser{Credentials: scram("nobody", "nobody-password")}
	// The first start lets the writer write reviews too.
	first := writer
	first.ACLs = append(topicACLs("reviews", events.OpWrite), writer.ACLs...)
	start := func(w events.ACLUser) *events.Broker {
		b, err := events.StartBrokerWith(events.BrokerOptions{DataDir: dir, Topics: []string{"orders", "reviews"},
			Users: []events.Credentials{admin}, ACLUsers: []events.ACLUser{w, reader, nobody}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := start(first)
	if err := eventstest.Write(ctx, b.BrokersAs(first.Credentials), "reviews", []byte("first start")); err != nil {
		t.Fatalf("the first start's ACLs: %v", err)
	}
	b.Close()
	for _, f := range []string{"acls.json", "sasl.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is left in the data directory", f)
		}
	}

	b = start(writer)
	defer b.Close()
	as := func(u events.ACLUser) events.Brokers { return b.BrokersAs(u.Credentials) }
	allowed := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v, want allowed", what, err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		if !eventstest.Refused(err) {
			t.Errorf("%s: %v, want refused by the ACLs", what, err)
		}
	}
	allowed("writer writes orders", eventstest.Write(ctx, as(writer), "orders", []byte("o1")))
	refused("writer writes reviews (allowed at the previous start only)", eventstest.Write(ctx, as(writer), "reviews", []byte("forged")))
	refused("writer writes orders.dlq", eventstest.Write(ctx, as(writer), "orders.dlq", []byte("x")))
	refused("writer reads orders", eventstest.Read(ctx, as(writer), "orders"))
	refused("writer joins group reader", eventstest.JoinGroup(ctx, as(writer), "reader", "orders"))

	allowed("reader reads orders", eventstest.Read(ctx, as(reader), "orders"))
	allowed("reader joins group reader", eventstest.JoinGroup(ctx, as(reader), "reader", "orders"))
	allowed("reader joins group reader.projection", eventstest.JoinGroup(ctx, as(reader), "reader.projection", "orders"))
	refused("reader joins group readers", eventstest.JoinGroup(ctx, as(reader), "readers", "orders"))
	refused("reader writes orders", eventstest.Write(ctx, as(reader), "orders", []byte("forged")))
	refused("reader reads reviews", eventstest.Read(ctx, as(reader), "reviews"))

	refused("nobody writes orders", eventstest.Write(ctx, as(nobody), "orders", []byte("forged")))
	refused("nobody reads orders", eventstest.Read(ctx, as(nobody), "orders"))

	allowed("the superuser writes reviews", eventstest.Write(ctx, b.Brokers(), "reviews", []byte("admin")))
	allowed("the superuser reads reviews", eventstest.Read(ctx, b.Brokers(), "reviews"))

	// A consumer group of the reader, as the services run one, reads what
	// the writer wrote.
	if got := readAll(t, as(reader), "reader.projection", "orders"); len(got) != 1 || got[0] != "o1" {
		t.Errorf("the reader's group read %q, want the writer's o1", got)
	}
}

// Users with ACLs need a superuser for the broker to create them, names are
// given once, and an ACL names an operation and a resource it knows.
func TestBrokerACLUsersRefused(t *testing.T) {
	admin := scram("admin", "admin-password")
	for _, tc := range []struct {
		name string
		o    events.BrokerOptions
		want string
	}{
		{"no superuser", events.BrokerOptions{ACLUsers: []events.ACLUser{{Credentials: scram("a", "pw")}}}, "needs a superuser"},
		{"twice", events.BrokerOptions{Users: []events.Credentials{admin}, ACLUsers: []events.ACLUser{{Credentials: scram("admin", "pw")}}}, `"admin" is given twice`},
		{"no password", events.BrokerOptions{Users: []events.Credentials{admin}, ACLUsers: []events.ACLUser{{Credentials: scram("a", "")}}}, "a password are needed"},
		{"unknown operation", events.BrokerOptions{Users: []events.Credentials{admin}, ACLUsers: []events.ACLUser{{Credentials: scram("a", "pw"),
			ACLs: []events.ACL{{Resource: events.ResourceTopic, Name: "orders", Operation: "All"}}}}}, `unknown operation "All"`},
		{"wildcard", events.BrokerOptions{Users: []events.Credentials{admin}, ACLUsers: []events.ACLUser{{Credentials: scram("a", "pw"),
			ACLs: []events.ACL{{Resource: events.ResourceTopic, Name: "*", Operation: events.OpRead}}}}}, "not the wildcard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := events.StartBrokerWith(tc.o)
			if err == nil {
				b.Close()
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want %q", err, tc.want)
			}
		})
	}
}

// readAll reads topic in group until it has been quiet for a second.
func readAll(t *testing.T, b events.Brokers, group, topic string) []string {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: b.Addrs, Dialer: b.Dialer("test"), GroupID: group, GroupTopics: []string{topic},
		MaxWait: 50 * time.Millisecond, StartOffset: kafka.FirstOffset,
		HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: time.Second, RebalanceTimeout: time.Second, ReadLagInterval: -1,
	})
	defer r.Close()
	var out []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		m, err := r.ReadMessage(ctx)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, string(m.Value))
	}
}

// While the broker runs, its data directory holds no users nor ACLs: kfake
// saves its whole state when it starts on a fresh directory, sasl.json
// included (each user's salted SCRAM password, which is enough to
// authenticate as the user, the superuser's among them), in a file others
// may read (0644). The users are this start's: on disk they would outlive a
// broker killed before it closes. A data directory the broker makes is its
// owner's only.
func TestBrokerLeavesNoUsersOnDiskWhileRunning(t *testing.T) {
	for _, fresh := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "kafka")
		start := func() *events.Broker {
			b, err := events.StartBrokerWith(events.BrokerOptions{DataDir: dir, Topics: []string{"orders"},
				Users:    []events.Credentials{scram("admin", "admin-password-0123")},
				ACLUsers: []events.ACLUser{{Credentials: scram("writer", "writer-password-0123"), ACLs: topicACLs("orders", events.OpWrite)}}})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		if !fresh { // a restart on a data directory an earlier start saved
			start().Close()
		}
		b := start()
		if st, err := os.Stat(dir); err != nil {
			t.Error(err)
		} else if perm := st.Mode().Perm(); perm != 0o700 {
			t.Errorf("the data directory the broker made has mode %04o, want 0700 (its records are the events)", perm)
		}
		for _, f := range []string{"sasl.json", "acls.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("fresh data directory %v: %s is in the data directory while the broker runs", fresh, f)
			}
		}
		b.Close()
	}
}
