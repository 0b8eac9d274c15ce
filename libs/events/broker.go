package events

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"marketplace/libs/liveset"
)

// brokerPartitions is the partition count of the embedded broker's topics.
const brokerPartitions = 3

// Broker is an embedded single-node Kafka (kfake) for the all-in-one mode and tests.
type Broker struct {
	cluster *kfake.Cluster
	opts    BrokerOptions
}

// BrokerOptions configure an embedded broker.
type BrokerOptions struct {
	// Port on the loopback interface; 0: a random one.
	Port int
	// DataDir keeps topics, records and committed offsets across restarts
	// (the port does not survive: ask Addrs again); "": everything in memory.
	DataDir string
	// Topics are created if missing; other topics are created on first use
	// (a consumer group's dead-letter topic by its consumer).
	Topics []string
	// Users, if any, are the SASL users the broker requires every client to
	// authenticate as; none: no authentication. They are superusers, whom no
	// ACL holds; the broker's own clients (creating Topics and the ACLs of
	// ACLUsers, Brokers) use the first.
	Users []Credentials
	// ACLUsers are the other SASL users, each allowed only what its ACLs say
	// (Kafka's simple authorizer: anything else is refused). They need Users.
	// Users and ACLs are this start's: those saved in DataDir by an earlier
	// start are dropped.
	ACLUsers []ACLUser
	// TLS, if set, is the listener's TLS (its certificate); ClientTLS is how
	// this process's own clients reach it (trusting that certificate), used
	// for creating Topics and handed out by Brokers.
	TLS, ClientTLS *tls.Config
}

// StartBroker starts a broker on a random loopback port, without
// authentication. With dataDir "" it keeps everything in memory; otherwise
// topics, records and committed offsets live in dataDir and survive a
// restart. The topics are created if missing; other topics are created on
// first use.
func StartBroker(dataDir string, topics ...string) (*Broker, error) {
	return StartBrokerWith(BrokerOptions{DataDir: dataDir, Topics: topics})
}

// StartBrokerWith starts a broker as o says: the all-in-one's, the standalone
// broker of the distributed mode on one machine (`marketplace broker`, which
// services find at a port known in advance), and tests'.
func StartBrokerWith(o BrokerOptions) (*Broker, error) {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(brokerPartitions),
		// Let tests use sub-second sessions; kfake's default floor is 6 s.
		kfake.GroupMinSessionTimeout(100 * time.Millisecond),
	}
	if o.DataDir != "" {
		// The records are the events (orders, payouts, wallets): a directory
		// made here is its owner's only, as the databases' are; kfake would
		// make it readable by anyone (0755).
		if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("events: broker: data directory: %w", err)
		}
		if err := dropSavedUsers(o.DataDir); err != nil {
			return nil, err
		}
		opts = append(opts, kfake.DataDir(o.DataDir))
	}
	if o.Port != 0 {
		opts = append(opts, kfake.Ports(o.Port))
	}
	if len(o.ACLUsers) > 0 && len(o.Users) == 0 {
		return nil, errors.New("events: a broker with ACLUsers needs a superuser in Users: its own clients create their ACLs")
	}
	if len(o.Users) > 0 {
		// With authentication, ACLs hold every user but the superusers: a
		// user without ACLs may do nothing.
		opts = append(opts, kfake.EnableSASL(), kfake.EnableACLs())
		seen := map[string]bool{}
		for _, u := range o.Users {
			if err := checkBrokerUser(u, seen); err != nil {
				return nil, err
			}
			opts = append(opts, kfake.Superuser(u.Mechanism, u.Username, u.Password))
		}
		for _, u := range o.ACLUsers {
			if err := checkBrokerUser(u.Credentials, seen); err != nil {
				return nil, err
			}
			// The ACLs are created once the broker runs (createACLs).
			opts = append(opts, kfake.User(u.Mechanism, u.Username, u.Password))
		}
	}
	if o.TLS != nil {
		if o.ClientTLS == nil {
			return nil, errors.New("events: a broker with TLS needs ClientTLS, the configuration its own clients trust it with")
		}
		opts = append(opts, kfake.TLS(o.TLS))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("events: start broker: %w", err)
	}
	b := &Broker{cluster: cluster, opts: o}
	// On a fresh data directory kfake saves its whole state as it starts,
	// sasl.json included (each user's salted SCRAM password, enough to
	// authenticate as the user, the superuser's among them; mode 0644), and
	// creating ACLs saves acls.json: they would stay on disk for the whole
	// run, and after a broker killed before it closes.
	for _, step := range []func() error{b.dropSavedUsers, func() error { return b.createTopics(o.Topics) },
		func() error { return b.createACLs(o.ACLUsers) }, b.dropSavedUsers} {
		if err := step(); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// dropSavedUsers removes the users and ACLs kfake saved in the data
// directory (none without one).
func (b *Broker) dropSavedUsers() error {
	if b.opts.DataDir == "" {
		return nil
	}
	return dropSavedUsers(b.opts.DataDir)
}

func checkBrokerUser(u Credentials, seen map[string]bool) error {
	if _, err := u.mechanism(); err != nil || u.Username == "" || u.Password == "" {
		return fmt.Errorf("events: broker user %q: a mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), a name and a password are needed", u.Username)
	}
	if seen[u.Username] {
		return fmt.Errorf("events: broker user %q is given twice", u.Username)
	}
	seen[u.Username] = true
	return nil
}

// kfake saves its SASL users and its ACLs in its data directory (as it
// starts on a fresh one, when ACLs are created, as it closes) and, on a
// restart, puts them in place of the configured ones; PLAIN passwords are
// saved as they are, SCRAM ones salted (which is enough to authenticate).
// Users and ACLs are configuration, not data: each start takes its own, and
// none is left on disk while the broker runs or after it closes.
var savedUsersFiles = []string{"sasl.json", "acls.json"}

func dropSavedUsers(dataDir string) error {
	for _, f := range savedUsersFiles {
		if err := os.Remove(filepath.Join(dataDir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("events: broker: drop the users and ACLs an earlier start saved: %w", err)
		}
	}
	return nil
}

// Brokers is how a client of this process reaches the broker: its address,
// the first user's credentials (a superuser's) and ClientTLS.
func (b *Broker) Brokers() Brokers {
	if len(b.opts.Users) == 0 {
		return Brokers{Addrs: b.Addrs(), TLS: b.opts.ClientTLS}
	}
	return b.BrokersAs(b.opts.Users[0])
}

// BrokersAs is how a client of this process reaches the broker as user.
func (b *Broker) BrokersAs(user Credentials) Brokers {
	out := Brokers{Addrs: b.Addrs(), TLS: b.opts.ClientTLS}
	out.SASL, _ = user.mechanism() // an unknown mechanism: none, which the broker refuses
	return out
}

// createTopics creates topics. It goes through
// the protocol rather than kfake's seed option because seeds are ignored when
// the state is reloaded from a data directory.
func (b *Broker) createTopics(topics []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return EnsureTopics(ctx, b.Brokers(), brokerPartitions, 1, topics...)
}

// LiveRetention is how long a live topic (liveset.TopicOf: a service's
// committed writes, one event per transaction) keeps its events: they matter
// only until the gateways have read them, a few milliseconds.
const LiveRetention = time.Hour

// EnsureTopics creates the topics unless they exist; a live topic keeps its
// events LiveRetention. partitions and replication of -1 take the cluster's
// defaults. (Dead-letter topics are consumer groups', DeadLetterTopic: a
// consumer makes sure its own exists.)
func EnsureTopics(ctx context.Context, brokers Brokers, partitions, replication int, topics ...string) error {
	if len(topics) == 0 {
		return nil
	}
	var cfgs []kafka.TopicConfig
	for _, t := range topics {
		if strings.HasPrefix(t, liveset.TopicPrefix) {
			cfgs = append(cfgs, kafka.TopicConfig{Topic: t, NumPartitions: partitions, ReplicationFactor: replication,
				ConfigEntries: []kafka.ConfigEntry{{ConfigName: "retention.ms", ConfigValue: strconv.FormatInt(LiveRetention.Milliseconds(), 10)}}})
			continue
		}
		cfgs = append(cfgs, kafka.TopicConfig{Topic: t, NumPartitions: partitions, ReplicationFactor: replication})
	}
	tr := brokers.Transport("marketplace-topics")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: cfgs})
	if err != nil {
		return fmt.Errorf("events: create topics: %w", err)
	}
	for name, err := range resp.Errors {
		if err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
			return fmt.Errorf("events: create topic %s: %w", name, err)
		}
	}
	return nil
}

// Addrs returns the broker's host:port addresses.
func (b *Broker) Addrs() []string { return b.cluster.ListenAddrs() }

// Close stops the broker, saving its state first when it has a data
// directory (not its users and ACLs: the next start takes its own).
func (b *Broker) Close() {
	b.cluster.Close()
	if b.opts.DataDir != "" {
		_ = dropSavedUsers(b.opts.DataDir)
	}
}
