package eventstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
)

// What a Kafka user may do, asked of the broker itself: tests of ACLs write
// and read as the user would, and see the broker's answer.

// Refused reports whether err is a broker's refusal by its ACLs.
func Refused(err error) bool {
	return errors.Is(err, kafka.TopicAuthorizationFailed) || errors.Is(err, kafka.GroupAuthorizationFailed) ||
		errors.Is(err, kafka.ClusterAuthorizationFailed)
}

// dialPartition connects to the broker for partition 0 of topic as brokers'
// user, asking nothing first: a metadata request would hide a topic the user
// may not see, where the test wants the broker's answer to the request itself.
func dialPartition(ctx context.Context, brokers events.Brokers, topic string) (*kafka.Conn, error) {
	if len(brokers.Addrs) == 0 {
		return nil, errors.New("no broker address")
	}
	host, port, err := net.SplitHostPort(brokers.Addrs[0])
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, err
	}
	conn, err := brokers.Dialer("acl-probe").DialPartition(ctx, "tcp", "", kafka.Partition{Topic: topic, ID: 0, Leader: kafka.Broker{Host: host, Port: p}})
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	return conn, nil
}

// Write appends value to partition 0 of topic as brokers' user.
func Write(ctx context.Context, brokers events.Brokers, topic string, value []byte) error {
	conn, err := dialPartition(ctx, brokers, topic)
	if err != nil {
		return fmt.Errorf("write %s: %w", topic, err)
	}
	defer conn.Close()
	if _, err := conn.WriteMessages(kafka.Message{Key: []byte("acl-probe"), Value: value}); err != nil {
		return fmt.Errorf("write %s: %w", topic, err)
	}
	return nil
}

// Read fetches partition 0 of topic from offset 0 as brokers' user.
func Read(ctx context.Context, brokers events.Brokers, topic string) error {
	conn, err := dialPartition(ctx, brokers, topic)
	if err != nil {
		return fmt.Errorf("read %s: %w", topic, err)
	}
	defer conn.Close()
	if _, err := conn.Seek(0, kafka.SeekAbsolute|kafka.SeekDontCheck); err != nil {
		return fmt.Errorf("read %s: %w", topic, err)
	}
	b := conn.ReadBatchWith(kafka.ReadBatchConfig{MinBytes: 1, MaxBytes: 1 << 20, MaxWait: 10 * time.Millisecond})
	if err := b.Close(); err != nil {
		return fmt.Errorf("read %s: %w", topic, err)
	}
	return nil
}

// JoinGroup asks to join the consumer group as brokers' user, without
// joining it: the request's session timeout is one the broker refuses, which
// it checks only after the user's right to the group (Read). So a member of
// nothing is added, and a running group is not rebalanced. nil: the user
// may join.
func JoinGroup(ctx context.Context, brokers events.Brokers, group, topic string) error {
	tr := brokers.Transport("acl-probe")
	defer tr.CloseIdleConnections()
	c := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.JoinGroup(ctx, &kafka.JoinGroupRequest{GroupID: group, SessionTimeout: time.Millisecond, RebalanceTimeout: time.Second,
		ProtocolType: "consumer", Protocols: []kafka.GroupProtocol{{Name: "range", Metadata: kafka.GroupProtocolSubscription{Topics: []string{topic}}}}})
	if err != nil {
		return fmt.Errorf("join group %s: %w", group, err)
	}
	if resp.Error != nil && !errors.Is(resp.Error, kafka.InvalidSessionTimeout) {
		return fmt.Errorf("join group %s: %w", group, resp.Error)
	}
	if resp.Error == nil {
		return fmt.Errorf("join group %s: the broker took a member with a 1 ms session; the probe cannot tell", group)
	}
	return nil
}
