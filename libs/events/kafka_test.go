package events

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/config"
	"marketplace/libs/tlstest"
)

// loadKafka reads KafkaSettings from env as a program does (libs/config, the
// password also from a file) and builds its brokers.
func loadKafka(env map[string]string) (Brokers, error) {
	var s KafkaSettings
	if err := config.Load(func(k string) string { return env[k] }, &s); err != nil {
		return Brokers{}, err
	}
	return s.Kafka()
}

// The settings' rules: each bad combination is refused at start, naming the
// setting; good ones build the TLS and SASL they say.
func TestKafkaSettings(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, "ca")
	client := ca.Client(t, "client")
	certFile, keyFile := client.CertFile, client.KeyFile
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	password := filepath.Join(dir, "password")
	if err := os.WriteFile(password, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scram := map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "payouts", "KAFKA_SASL_PASSWORD": "pw"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{"KAFKA_BROKERS": "kafka-1:9093,kafka-2:9093"}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string // an error holding it; "" is no error
		mech string // the SASL mechanism built
		tls  bool   // TLS built
	}{
		{"nothing: plaintext, no authentication", with(nil), "", "", false},
		{"SCRAM-SHA-512", with(scram), "", "SCRAM-SHA-512", false},
		{"SCRAM-SHA-256 in lower case", with(scram, "KAFKA_SASL_MECHANISM", "scram-sha-256"), "", "SCRAM-SHA-256", false},
		{"the password from a file", with(scram, "KAFKA_SASL_PASSWORD", "", "KAFKA_SASL_PASSWORD_FILE", password), "", "SCRAM-SHA-512", false},
		{"the password and its file", with(scram, "KAFKA_SASL_PASSWORD_FILE", password), "set KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both", "", false},
		{"an unreadable password file", with(scram, "KAFKA_SASL_PASSWORD", "", "KAFKA_SASL_PASSWORD_FILE", filepath.Join(dir, "missing")), "KAFKA_SASL_PASSWORD_FILE: open", "", false},
		{"an unknown mechanism", with(scram, "KAFKA_SASL_MECHANISM", "GSSAPI"), `KAFKA_SASL_MECHANISM "GSSAPI" must be SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN`, "", false},
		{"a mechanism without a user", with(scram, "KAFKA_SASL_USERNAME", ""), "KAFKA_SASL_MECHANISM=SCRAM-SHA-512 needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", "", false},
		{"a mechanism without a password", with(scram, "KAFKA_SASL_PASSWORD", ""), "KAFKA_SASL_MECHANISM=SCRAM-SHA-512 needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", "", false},
		{"credentials without a mechanism", with(scram, "KAFKA_SASL_MECHANISM", ""), "KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set without KAFKA_SASL_MECHANISM", "", false},
		{"PLAIN without TLS", with(scram, "KAFKA_SASL_MECHANISM", "PLAIN"), "KAFKA_SASL_MECHANISM=PLAIN sends the password as it is: use it only with TLS", "", false},
		{"PLAIN over TLS", with(scram, "KAFKA_SASL_MECHANISM", "PLAIN", "KAFKA_TLS_ENABLED", "true"), "", "PLAIN", true},
		{"TLS with the system's roots", with(nil, "KAFKA_TLS_ENABLED", "true"), "", "", true},
		{"a CA file implies TLS", with(nil, "KAFKA_TLS_CA_FILE", ca.File), "", "", true},
		{"a server name implies TLS", with(nil, "KAFKA_TLS_SERVER_NAME", "kafka.internal"), "", "", true},
		{"an unreadable CA", with(nil, "KAFKA_TLS_CA_FILE", filepath.Join(dir, "missing.pem")), "KAFKA_TLS_CA_FILE: open " + filepath.Join(dir, "missing.pem"), "", false},
		{"a CA file without a certificate", with(nil, "KAFKA_TLS_CA_FILE", notPEM), "KAFKA_TLS_CA_FILE: " + notPEM + " holds no PEM certificate", "", false},
		{"a client certificate", with(scram, "KAFKA_TLS_CA_FILE", ca.File, "KAFKA_TLS_CERT_FILE", certFile, "KAFKA_TLS_KEY_FILE", keyFile), "", "SCRAM-SHA-512", true},
		{"a certificate without its key", with(nil, "KAFKA_TLS_CERT_FILE", certFile), "a client certificate needs both KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE", "", false},
		{"a key without its certificate", with(nil, "KAFKA_TLS_KEY_FILE", keyFile), "a client certificate needs both KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE", "", false},
		{"a certificate with another's key", with(nil, "KAFKA_TLS_CERT_FILE", certFile, "KAFKA_TLS_KEY_FILE", notPEM), "KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE:", "", false},
		{"TLS off explicitly", with(nil, "KAFKA_TLS_ENABLED", "false"), "", "", false},
		{"TLS not a boolean", with(nil, "KAFKA_TLS_ENABLED", "yes please"), "KAFKA_TLS_ENABLED", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := loadKafka(tc.env)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Addrs) != 2 || b.Addrs[1] != "kafka-2:9093" {
				t.Errorf("addresses %q", b.Addrs)
			}
			if mech := ""; b.SASL != nil {
				if mech = b.SASL.Name(); mech != tc.mech {
					t.Errorf("SASL %s, want %q", mech, tc.mech)
				}
			} else if tc.mech != "" {
				t.Errorf("no SASL, want %s", tc.mech)
			}
			if (b.TLS != nil) != tc.tls {
				t.Fatalf("TLS %v, want %v", b.TLS != nil, tc.tls)
			}
			if b.TLS != nil {
				if b.TLS.MinVersion < tls.VersionTLS12 || b.TLS.ServerName != tc.env["KAFKA_TLS_SERVER_NAME"] ||
					(b.TLS.RootCAs != nil) != (tc.env["KAFKA_TLS_CA_FILE"] != "") || (len(b.TLS.Certificates) == 1) != (tc.env["KAFKA_TLS_CERT_FILE"] != "") {
					t.Errorf("TLS config %+v", b.TLS)
				}
			}
			if d := b.Dialer("x"); d.TLS != b.TLS || d.SASLMechanism != b.SASL {
				t.Error("the dialer does not carry the settings' TLS and SASL")
			}
			if tr := b.Transport("x"); tr.TLS != b.TLS || tr.SASL != b.SASL {
				t.Error("the transport does not carry the settings' TLS and SASL")
			}
		})
	}
}

// A client with the settings a broker requires, SASL/SCRAM over TLS with a
// client certificate (a CA, the broker's and the client's certificates made
// here), creates topics, publishes and consumes in a group through the
// embedded broker; a wrong password, no credentials, a plaintext client, a
// client without its certificate and one that does not trust the broker's
// are refused, each told which settings to look at.
func TestSASLAndTLSAgainstTheEmbeddedBroker(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, "ca")
	server, client := ca.Server(t, "broker", "kafka.internal"), ca.Client(t, "client")
	serverCert, clientCert, certFile, keyFile := server.Pair, client.Pair, client.CertFile, client.KeyFile
	const topic = "payouts"
	b, err := StartBrokerWith(BrokerOptions{
		Topics:    []string{topic},
		Users:     []Credentials{{Mechanism: SASLScramSHA512, Username: "payouts", Password: "s3cret-payouts"}},
		TLS:       &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.Pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12},
		ClientTLS: &tls.Config{RootCAs: ca.Pool, Certificates: []tls.Certificate{clientCert}, MinVersion: tls.VersionTLS12},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	passwordFile := filepath.Join(dir, "kafka-password")
	if err := os.WriteFile(passwordFile, []byte("s3cret-payouts\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	right := map[string]string{
		"KAFKA_BROKERS": b.Addrs()[0], "KAFKA_TLS_CA_FILE": ca.File, "KAFKA_TLS_CERT_FILE": certFile, "KAFKA_TLS_KEY_FILE": keyFile,
		"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "payouts", "KAFKA_SASL_PASSWORD_FILE": passwordFile,
	}
	brokers, err := loadKafka(right)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := brokers.Check(ctx, "test"); err != nil {
		t.Fatalf("the right settings: %v", err)
	}
	if err := EnsureTopics(ctx, brokers, 1, 1, "more"); err != nil {
		t.Fatalf("create a topic: %v", err)
	}
	pub := NewKafkaPublisher(brokers, nil)
	defer pub.Close()
	if err := pub.Publish(ctx, Message{Topic: topic, Key: []byte("store-1"), Value: []byte(`{"earning":"80.70"}`)}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers.Addrs, Dialer: brokers.Dialer("test"), GroupID: "payouts", GroupTopics: []string{topic},
		StartOffset: kafka.FirstOffset, MaxWait: 50 * time.Millisecond, HeartbeatInterval: 100 * time.Millisecond,
		SessionTimeout: time.Second, RebalanceTimeout: time.Second, ReadLagInterval: -1,
	})
	defer r.Close()
	m, err := r.FetchMessage(ctx)
	if err != nil || string(m.Value) != `{"earning":"80.70"}` {
		t.Fatalf("consume: %q, %v", m.Value, err)
	}
	if err := r.CommitMessages(ctx, m); err != nil {
		t.Fatalf("commit: %v", err)
	}

	otherCA := tlstest.NewCA(t, "other-ca")
	for _, tc := range []struct {
		name string
		env  map[string]string // changes to the right settings; "" unsets
		want string
	}{
		{"a wrong password", map[string]string{"KAFKA_SASL_PASSWORD_FILE": "", "KAFKA_SASL_PASSWORD": "guessed"}, "refused the SASL credentials (KAFKA_SASL_MECHANISM=SCRAM-SHA-512"},
		{"another mechanism", map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-256"}, "refused the SASL credentials (KAFKA_SASL_MECHANISM=SCRAM-SHA-256"},
		{"no credentials", map[string]string{"KAFKA_SASL_MECHANISM": "", "KAFKA_SASL_USERNAME": "", "KAFKA_SASL_PASSWORD_FILE": ""}, "requires authentication: set KAFKA_SASL_MECHANISM"},
		{"plaintext", map[string]string{"KAFKA_TLS_CA_FILE": "", "KAFKA_TLS_CERT_FILE": "", "KAFKA_TLS_KEY_FILE": ""}, "does it require TLS (KAFKA_TLS_ENABLED)?"},
		{"without the client certificate", map[string]string{"KAFKA_TLS_CERT_FILE": "", "KAFKA_TLS_KEY_FILE": ""}, "does it require a client certificate (KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE)?"},
		{"not trusting the broker", map[string]string{"KAFKA_TLS_CA_FILE": otherCA.File}, "its certificate is not trusted (KAFKA_TLS_CA_FILE, KAFKA_TLS_SERVER_NAME)"},
		{"another server name", map[string]string{"KAFKA_TLS_SERVER_NAME": "kafka.elsewhere"}, "its certificate is not trusted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range right {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			wrong, err := loadKafka(env)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = wrong.Check(ctx, "test")
			t.Logf("refused: %v", err)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check: %v, want an error with %q", err, tc.want)
			}
			if strings.Contains(tc.want, "KAFKA_") && !errors.Is(err, ErrBrokerRefused) {
				t.Errorf("%v is not ErrBrokerRefused", err)
			}
			p := NewKafkaPublisher(wrong, nil)
			defer p.Close()
			if err := p.Publish(ctx, Message{Topic: topic, Key: []byte("store-1"), Value: []byte(`{"forged":true}`)}); err == nil {
				t.Fatal("published with the wrong settings")
			}
		})
	}
	// Nothing but the one event reached the topic.
	var values []string
	for p := range brokerPartitions {
		pr := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers.Addrs, Dialer: brokers.Dialer("test"), Topic: topic, Partition: p, MaxWait: 50 * time.Millisecond})
		for {
			pctx, pcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			m, err := pr.ReadMessage(pctx)
			pcancel()
			if err != nil {
				break
			}
			values = append(values, string(m.Value))
		}
		pr.Close()
	}
	if len(values) != 1 {
		t.Errorf("the topic holds %q, want only the event published with the right settings", values)
	}
}

// A broker restarted on its data directory requires the users of this start:
// those of the previous start are refused, the records are kept.
func TestBrokerUsersAreEachStarts(t *testing.T) {
	dir := t.TempDir()
	user := func(pw string) Credentials {
		return Credentials{Mechanism: SASLScramSHA256, Username: "marketplace", Password: pw}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := StartBrokerWith(BrokerOptions{DataDir: dir, Topics: []string{"orders"}, Users: []Credentials{user("first-start")}})
	if err != nil {
		t.Fatal(err)
	}
	first := b.Brokers()
	pub := NewKafkaPublisher(first, nil)
	if err := pub.Publish(ctx, Message{Topic: "orders", Key: []byte("o1"), Value: []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	pub.Close()
	b.Close()
	for _, f := range savedUsersFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left in the data directory: %v", f, err)
		}
	}

	b, err = StartBrokerWith(BrokerOptions{DataDir: dir, Topics: []string{"orders"}, Users: []Credentials{user("second-start")}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	stale := first
	stale.Addrs = b.Addrs() // the port is new
	if err := stale.Check(ctx, "test"); !errors.Is(err, ErrBrokerRefused) {
		t.Fatalf("the first start's password: %v, want refused", err)
	}
	if err := b.Brokers().Check(ctx, "test"); err != nil {
		t.Fatalf("the second start's password: %v", err)
	}
	if n := len(readTopicWith(t, b.Brokers(), "orders", 1)); n != 1 {
		t.Fatalf("%d records after the restart, want 1", n)
	}
}

// readTopicWith reads n messages of a topic from the start with a fresh group.
func readTopicWith(t *testing.T, b Brokers, topic string, n int) []kafka.Message {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: b.Addrs, Dialer: b.Dialer("test"), GroupID: "verify-" + rand.Text(), GroupTopics: []string{topic},
		MaxWait: 50 * time.Millisecond, StartOffset: kafka.FirstOffset,
		HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: time.Second, RebalanceTimeout: time.Second, ReadLagInterval: -1,
	})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []kafka.Message
	for len(out) < n {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("read %s: got %d of %d messages: %v", topic, len(out), n, err)
		}
		out = append(out, m)
	}
	return out
}

// TestPublisherCloseLeavesNoConnectionPool: KafkaPublisher.Close closes its
// transport too. kafka-go's Writer closes only a transport of its own
// making; ours stayed open, with a goroutine per pool asking the broker for
// metadata every few seconds: the e2e suite ended with 1,131 of them, dialling
// brokers long gone, and ran about twice as slow at its end as at its start.
func TestPublisherCloseLeavesNoConnectionPool(t *testing.T) {
	b, err := StartBrokerWith(BrokerOptions{DataDir: t.TempDir(), Topics: []string{"orders"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The broker's start closes a client of its own: its pool's goroutine
	// may not have ended yet.
	before := poolGoroutines()
	for deadline := time.Now().Add(2 * time.Second); before > 0 && time.Now().Before(deadline); before = poolGoroutines() {
		time.Sleep(20 * time.Millisecond)
	}
	for range 3 {
		pub := NewKafkaPublisher(b.Brokers(), nil)
		if err := pub.Publish(ctx, Message{Topic: "orders", Key: []byte("o1"), Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
		if poolGoroutines() <= before {
			t.Fatalf("no connection pool while publishing (%d before): the check below would prove nothing", before)
		}
		pub.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); poolGoroutines() > before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connection pools' goroutines left after Close (%d before)", poolGoroutines(), before)
		}
	}
}

// poolGoroutines counts the goroutines of kafka-go's connection pools.
func poolGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "kafka-go.(*connPool).discover")
		}
		buf = make([]byte, 2*len(buf))
	}
}
