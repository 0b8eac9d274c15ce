package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
)

// brokerPartitions is the partition count of the embedded broker's topics.
const brokerPartitions = 3

// Broker is an embedded single-node Kafka (kfake) for the all-in-one mode and tests.
type Broker struct {
	cluster *kfake.Cluster
}

// StartBroker starts a broker on a random loopback port. With dataDir "" it
// keeps everything in memory; otherwise topics, records and committed offsets
// live in dataDir and survive a restart (the port does not: ask Addrs again).
// The topics and their dead-letter topics are created if missing; other
// topics are created on first use.
func StartBroker(dataDir string, topics ...string) (*Broker, error) {
	return StartBrokerOn(0, dataDir, topics...)
}

// StartBrokerOn is StartBroker listening on port of the loopback interface (0:
// a random one): the standalone broker of the distributed mode on one machine
// (`marketplace broker`), which services find at a port known in advance.
func StartBrokerOn(port int, dataDir string, topics ...string) (*Broker, error) {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(brokerPartitions),
		// Let tests use sub-second sessions; kfake's default floor is 6 s.
		kfake.GroupMinSessionTimeout(100 * time.Millisecond),
	}
	if dataDir != "" {
		opts = append(opts, kfake.DataDir(dataDir))
	}
	if port != 0 {
		opts = append(opts, kfake.Ports(port))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("events: start broker: %w", err)
	}
	b := &Broker{cluster: cluster}
	if err := b.createTopics(topics); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// createTopics creates topics and their dead-letter topics. It goes through
// the protocol rather than kfake's seed option because seeds are ignored when
// the state is reloaded from a data directory.
func (b *Broker) createTopics(topics []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return EnsureTopics(ctx, b.Addrs(), brokerPartitions, 1, topics...)
}

// EnsureTopics creates the topics and their dead-letter topics unless they exist.
// partitions and replication of -1 take the cluster's defaults.
func EnsureTopics(ctx context.Context, brokers []string, partitions, replication int, topics ...string) error {
	if len(topics) == 0 {
		return nil
	}
	var cfgs []kafka.TopicConfig
	for _, t := range topics {
		for _, name := range []string{t, t + DLQSuffix} {
			cfgs = append(cfgs, kafka.TopicConfig{Topic: name, NumPartitions: partitions, ReplicationFactor: replication})
		}
	}
	tr := &kafka.Transport{DialTimeout: 5 * time.Second}
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: tr, Timeout: 10 * time.Second}
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

// Close stops the broker, saving its state first when it has a data directory.
func (b *Broker) Close() { b.cluster.Close() }
