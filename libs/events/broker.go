package events

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
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
	// Topics are created with their dead-letter topics if missing; other
	// topics are created on first use.
	Topics []string
	// Users, if any, are the SASL users the broker requires every client to
	// authenticate as; none: no authentication. They are this start's: a
	// user list saved in DataDir by an earlier start is dropped.
	Users []Credentials
	// TLS, if set, is the listener's TLS (its certificate); ClientTLS is how
	// this process's own clients reach it (trusting that certificate), used
	// for creating Topics and handed out by Brokers.
	TLS, ClientTLS *tls.Config
}

// StartBroker starts a broker on a random loopback port, without
// authentication. With dataDir "" it keeps everything in memory; otherwise
// topics, records and committed offsets live in dataDir and survive a
// restart. The topics and their dead-letter topics are created if missing;
// other topics are created on first use.
func StartBroker(dataDir string, topics ...string) (*Broker, error) {
	return StartBrokerWith(BrokerOptions{DataDir: dataDir, Topics: topics})
}

// StartBrokerOn is StartBroker listening on port of the loopback interface (0:
// a random one).
func StartBrokerOn(port int, dataDir string, topics ...string) (*Broker, error) {
	return StartBrokerWith(BrokerOptions{Port: port, DataDir: dataDir, Topics: topics})
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
		if err := dropSavedUsers(o.DataDir); err != nil {
			return nil, err
		}
		opts = append(opts, kfake.DataDir(o.DataDir))
	}
	if o.Port != 0 {
		opts = append(opts, kfake.Ports(o.Port))
	}
	if len(o.Users) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for _, u := range o.Users {
			if _, err := u.mechanism(); err != nil || u.Username == "" || u.Password == "" {
				return nil, fmt.Errorf("events: broker user %q: a mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), a name and a password are needed", u.Username)
			}
			// Superuser: kfake checks no ACLs here, every user may do everything.
			opts = append(opts, kfake.Superuser(u.Mechanism, u.Username, u.Password))
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
	if err := b.createTopics(o.Topics); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// kfake saves its SASL users in its data directory and, on a restart, puts
// them in place of the configured ones; PLAIN passwords are saved as they
// are. The users are configuration, not data: each start takes its own.
const savedUsersFile = "sasl.json"

func dropSavedUsers(dataDir string) error {
	if err := os.Remove(filepath.Join(dataDir, savedUsersFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("events: broker: drop the users an earlier start saved: %w", err)
	}
	return nil
}

// Brokers is how a client of this process reaches the broker: its address,
// the first user's credentials and ClientTLS.
func (b *Broker) Brokers() Brokers {
	out := Brokers{Addrs: b.Addrs(), TLS: b.opts.ClientTLS}
	if len(b.opts.Users) > 0 {
		out.SASL, _ = b.opts.Users[0].mechanism() // checked at start
	}
	return out
}

// createTopics creates topics and their dead-letter topics. It goes through
// the protocol rather than kfake's seed option because seeds are ignored when
// the state is reloaded from a data directory.
func (b *Broker) createTopics(topics []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return EnsureTopics(ctx, b.Brokers(), brokerPartitions, 1, topics...)
}

// EnsureTopics creates the topics and their dead-letter topics unless they exist.
// partitions and replication of -1 take the cluster's defaults.
func EnsureTopics(ctx context.Context, brokers Brokers, partitions, replication int, topics ...string) error {
	if len(topics) == 0 {
		return nil
	}
	var cfgs []kafka.TopicConfig
	for _, t := range topics {
		for _, name := range []string{t, t + DLQSuffix} {
			cfgs = append(cfgs, kafka.TopicConfig{Topic: name, NumPartitions: partitions, ReplicationFactor: replication})
		}
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
// directory (not its users: the next start takes its own).
func (b *Broker) Close() {
	b.cluster.Close()
	if b.opts.DataDir != "" {
		_ = dropSavedUsers(b.opts.DataDir)
	}
}
