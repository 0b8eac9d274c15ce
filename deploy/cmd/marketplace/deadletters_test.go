package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
)

// `marketplace dead-letters` lists a group's dead letters and replays them,
// as the group's service's Kafka user (from KAFKA_SASL_* or the launcher's
// users file), on a broker holding every user to the module list's ACLs:
// another service's user is refused the group's dead letters. A replay is
// done once; an event id that has nothing to replay is an error; the flags
// that make no sense are usage errors.
func TestDeadLettersCommand(t *testing.T) {
	users := modules.KafkaUsers(modules.All)
	cred := map[string]events.Credentials{}
	for _, u := range users {
		cred[u.Username] = u.Credentials
	}
	b, err := events.StartBrokerWith(events.BrokerOptions{Topics: modules.Topics(modules.All),
		Users: []events.Credentials{events.NewUser("admin")}, ACLUsers: users})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// What the notifications consumer parks: an event of orders, and a
	// message that is none.
	notif := b.BrokersAs(cred["notifications"])
	dlq := events.DeadLetterTopic("notifications")
	if err := events.EnsureTopics(ctx, notif, -1, -1, dlq); err != nil {
		t.Fatal(err)
	}
	env, _ := json.Marshal(events.Envelope{ID: "evt_parked", Type: "order.status_changed", Source: "customers", Time: time.Now().UTC(), Subject: "ord_1", Data: json.RawMessage(`{}`)})
	pub := events.NewKafkaPublisher(notif, nil)
	defer pub.Close()
	parked := map[string]string{events.SourceTopicHeader: "orders", events.GroupHeader: "notifications", events.ErrorHeader: "no such order\nat all"}
	if err := pub.Publish(ctx, events.Message{Topic: dlq, Key: []byte("ord_1"), Value: env, Headers: parked},
		events.Message{Topic: dlq, Key: []byte("ord_2"), Value: []byte("not an event"), Headers: parked}); err != nil {
		t.Fatal(err)
	}

	envOf := func(user string) func(string) string {
		c := cred[user]
		env := map[string]string{"KAFKA_BROKERS": b.Addrs()[0], "KAFKA_SASL_MECHANISM": c.Mechanism, "KAFKA_SASL_USERNAME": c.Username, "KAFKA_SASL_PASSWORD": c.Password}
		return func(k string) string { return env[k] }
	}
	run := func(getenv func(string) string, args ...string) (string, error) {
		var out bytes.Buffer
		err := runArgs(ctx, append([]string{"dead-letters"}, args...), getenv, &out)
		return out.String(), err
	}

	out, err := run(envOf("notifications"), "-group", "notifications")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "evt_parked") || !strings.Contains(out, "order.status_changed") || !strings.Contains(out, "no such order at all") ||
		!strings.Contains(out, "orders") || strings.Count(out, "\n") != 3 || !strings.Contains(out, "not replayable") {
		t.Fatalf("list:\n%s", out)
	}
	if _, err := run(envOf("payouts"), "-group", "notifications"); !eventstest.Refused(err) {
		t.Fatalf("payouts' user listed notifications' dead letters: %v, want refused by the broker", err)
	}
	if _, err := run(envOf("payouts"), "-group", "notifications", "-replay"); !eventstest.Refused(err) {
		t.Fatalf("payouts' user replayed notifications' dead letters: %v, want refused by the broker", err)
	}

	if _, err := run(envOf("notifications"), "-group", "notifications", "-replay", "-id", "evt_other"); err == nil || !strings.Contains(err.Error(), "evt_other") {
		t.Fatalf("replay of an event not parked: %v", err)
	}
	usersFile := filepath.Join(t.TempDir(), "users.json")
	var creds []events.Credentials
	for _, u := range users {
		creds = append(creds, u.Credentials)
	}
	if err := launch.WriteBrokerUsers(usersFile, creds); err != nil {
		t.Fatal(err)
	}
	brokersOnly := func(k string) string { return map[string]string{"KAFKA_BROKERS": b.Addrs()[0]}[k] }
	out, err = run(brokersOnly, "-group", "notifications", "-users", usersFile, "-replay", "-id", "evt_parked")
	if err != nil || !strings.Contains(out, "replayed 1 to group notifications") || !strings.Contains(out, "evt_parked") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	if out, err = run(envOf("notifications"), "-group", "notifications", "-replay"); err != nil || !strings.Contains(out, "nothing to replay") {
		t.Fatalf("second replay: %v\n%s", err, out)
	}
	if out, err = run(envOf("notifications"), "-group", "notifications"); err != nil || !strings.Contains(out, "replayed") {
		t.Fatalf("list after the replay: %v\n%s", err, out)
	}
	// The replay is in the group's own topic, nowhere else.
	if n := recordsIn(t, notif, dlq); n != 3 {
		t.Fatalf("%s holds %d records, want the 2 parked and 1 replay", dlq, n)
	}

	for name, tc := range map[string]struct {
		getenv func(string) string
		args   []string
		want   string
	}{
		"no group":            {envOf("notifications"), nil, "-group is required"},
		"-id without -replay": {envOf("notifications"), []string{"-group", "notifications", "-id", "evt_parked"}, "without -replay"},
		"no KAFKA_BROKERS":    {func(string) string { return "" }, []string{"-group", "notifications"}, "set KAFKA_BROKERS"},
		"two users":           {envOf("notifications"), []string{"-group", "notifications", "-users", usersFile}, "two users"},
		"a group no user has": {brokersOnly, []string{"-group", "ledger", "-users", usersFile}, `no user "ledger"`},
	} {
		if _, err := run(tc.getenv, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// recordsIn counts the records of topic's partitions, as brokers' user.
func recordsIn(t *testing.T, brokers events.Brokers, topic string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := brokers.Transport("test")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(meta.Topics) != 1 || meta.Topics[0].Error != nil {
		t.Fatalf("metadata of %s: %+v %v", topic, meta, err)
	}
	var req []kafka.OffsetRequest
	for _, p := range meta.Topics[0].Partitions {
		req = append(req, kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
	}
	resp, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: req}})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range resp.Topics[topic] {
		n += p.LastOffset - p.FirstOffset
	}
	return n
}
