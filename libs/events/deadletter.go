package events

// Dead letters. Each consumer group parks the events it gives up on in a
// dead-letter topic of its own, "dlq.<group>", which only the group's Kafka
// user may write and read (deploy/modules: a module's user has the topics
// "dlq.<module>" and "dlq.<module>.*", as it has the groups "<module>" and
// "<module>.*"). A replay goes back into that same topic, as a copy of the
// parked record marked ReplayOfHeader; the group's consumer reads its
// dead-letter topic with its other topics, acknowledges parked records and
// handles replays as events of the topic they were parked from. So:
//
//   - a consumer's user can put nothing in front of another group, or of
//     the producers' topics: a record it writes in its dead-letter topic
//     reaches its own group only (before, every consumer of a topic wrote
//     "<topic>.dlq", which an operator replayed into the topic itself, read
//     by every group);
//   - a replay redelivers to the group that parked the event only: the
//     other groups handled it (or parked it in their own topic) and must
//     not see it again; beyond their dedupe retention they would handle it
//     a second time. And replaying into the shared topic would need the
//     producer's credentials, to publish what looks like the producer's
//     event.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
)

// DeadLetterPrefix starts every consumer group's dead-letter topic.
const DeadLetterPrefix = "dlq."

// The headers of a dead-lettered record (with the original message's own).
const (
	// ErrorHeader carries the failure on a dead-lettered message.
	ErrorHeader = "error"
	// SourceTopicHeader, SourcePartitionHeader and SourceOffsetHeader say
	// where the parked message was read; GroupHeader, which group parked it.
	SourceTopicHeader     = "dlq-topic"
	SourcePartitionHeader = "dlq-partition"
	SourceOffsetHeader    = "dlq-offset"
	GroupHeader           = "dlq-group"
	// ReplayOfHeader marks a replay: "<partition>/<offset>" of the parked
	// record it copies, in the group's dead-letter topic.
	ReplayOfHeader = "dlq-replay-of"
	// ReplayedAtHeader is when the replay was written (RFC 3339).
	ReplayedAtHeader = "dlq-replayed-at"
)

// DeadLetterTopic is the dead-letter topic of consumer group group.
func DeadLetterTopic(group string) string { return DeadLetterPrefix + group }

// topicName is what Kafka accepts as a topic name.
var topicName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// checkGroupName refuses a group whose dead-letter topic Kafka could not
// name.
func checkGroupName(group string) error {
	if name := DeadLetterTopic(group); !topicName.MatchString(name) || len(name) > 249 {
		return fmt.Errorf("events: consumer group %q cannot name its dead-letter topic %q: letters, digits, '.', '_' and '-' only, at most %d characters", group, name, 249-len(DeadLetterPrefix))
	}
	return nil
}

// delivery is how the consumer of a group reads msg. A message of another
// topic is itself, without replay marks (only the group's own user writes
// its dead-letter topic: a mark on another topic's message is not one).
// In the group's dead-letter topic, a replay is the parked event as a
// message of the topic it was parked from (ok); a parked record is not to
// be handled (!ok).
func (c *consumer) delivery(msg kafka.Message) (out kafka.Message, ok bool) {
	if msg.Topic != c.dlqTopic {
		if slices.ContainsFunc(msg.Headers, func(h kafka.Header) bool { return h.Key == ReplayOfHeader }) {
			msg.Headers = slices.DeleteFunc(slices.Clone(msg.Headers), func(h kafka.Header) bool { return h.Key == ReplayOfHeader })
		}
		return msg, true
	}
	h := headersFromKafka(msg.Headers)
	source := h[SourceTopicHeader]
	if _, replay := h[ReplayOfHeader]; !replay || source == "" || source == c.dlqTopic {
		return msg, false
	}
	// A replay from a topic the group no longer reads is handled all the
	// same (this group parked it): the topic only names its records.
	msg.Topic = source
	return msg, true
}

// DeadLetter is an event a consumer group parked.
type DeadLetter struct {
	// Partition and Offset are the parked record's, in the group's
	// dead-letter topic.
	Partition int
	Offset    int64
	// Topic is the topic it was parked from; Error, why.
	Topic string
	Error string
	// ID and Type are its envelope's; empty when the message is none.
	ID, Type string
	// ParkedAt is when it was parked (the record's time).
	ParkedAt time.Time
	// Replayed says a replay of it is in the topic (the group reads it, and
	// parks the event again if it fails again: a new DeadLetter).
	Replayed bool

	key     []byte
	value   []byte
	headers map[string]string
}

// Ref is "<partition>/<offset>", as ReplayOfHeader names it.
func (d DeadLetter) Ref() string { return fmt.Sprintf("%d/%d", d.Partition, d.Offset) }

// DeadLetters are the events group parked and its dead-letter topic still
// retains, oldest first per partition, each marked Replayed when a replay
// of it follows. brokers is the group's Kafka user (no other may read its
// dead-letter topic).
func DeadLetters(ctx context.Context, brokers Brokers, group string) ([]DeadLetter, error) {
	if err := checkGroupName(group); err != nil {
		return nil, err
	}
	topic := DeadLetterTopic(group)
	tr := brokers.Transport("marketplace-dead-letters")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	// The topic's partitions, asked of the broker itself: the client's
	// metadata (of the topics the user may see) would say that a topic the
	// user may not read does not exist.
	if len(brokers.Addrs) == 0 {
		return nil, errors.New("events: dead letters: no broker address")
	}
	conn, err := brokers.Dialer("marketplace-dead-letters").DialContext(ctx, "tcp", brokers.Addrs[0])
	if err != nil {
		return nil, fmt.Errorf("events: dead letters of %s: %w", group, err)
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if errors.Is(err, kafka.UnknownTopicOrPartition) {
		return nil, nil // the group never ran: nothing parked
	}
	if err != nil {
		return nil, fmt.Errorf("events: dead letters of %s: topic %s: %w", group, topic, err)
	}
	var req []kafka.OffsetRequest
	for _, p := range parts {
		req = append(req, kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
	}
	offsets, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: req}})
	if err != nil {
		return nil, fmt.Errorf("events: dead letters of %s: %w", group, err)
	}
	var parked []DeadLetter
	replayed := map[string]bool{}
	for _, p := range offsets.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("events: dead letters of %s: partition %d: %w", group, p.Partition, p.Error)
		}
		msgs, err := readPartition(ctx, brokers, topic, p.Partition, p.FirstOffset, p.LastOffset)
		if err != nil {
			return nil, fmt.Errorf("events: dead letters of %s: partition %d: %w", group, p.Partition, err)
		}
		for _, m := range msgs {
			h := headersFromKafka(m.Headers)
			if ref, ok := h[ReplayOfHeader]; ok {
				replayed[ref] = true
				continue
			}
			d := DeadLetter{Partition: m.Partition, Offset: m.Offset, Topic: h[SourceTopicHeader], Error: h[ErrorHeader],
				ParkedAt: m.Time, key: m.Key, value: m.Value, headers: h}
			if env, err := Decode(m.Value); err == nil {
				d.ID, d.Type = env.ID, env.Type
			}
			parked = append(parked, d)
		}
	}
	for i := range parked {
		parked[i].Replayed = replayed[parked[i].Ref()]
	}
	slices.SortStableFunc(parked, func(a, b DeadLetter) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	return parked, nil
}

// readPartition reads the records of topic's partition in [first, end).
func readPartition(ctx context.Context, brokers Brokers, topic string, partition int, first, end int64) ([]kafka.Message, error) {
	if first >= end {
		return nil, nil
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers.Addrs, Dialer: brokers.Dialer("marketplace-dead-letters"), Topic: topic,
		Partition: partition, MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond, ReadLagInterval: -1})
	defer r.Close()
	if err := r.SetOffset(first); err != nil {
		return nil, err
	}
	var out []kafka.Message
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		if m.Offset >= end-1 {
			return out, nil
		}
	}
}

// ReplayDeadLetters replays the events group parked that are not replayed
// yet and that pick accepts (nil: all), in the group's dead-letter topic,
// where the group's consumers read them and handle them as events of the
// topic they were parked from; no other group sees them. It returns the
// dead letters it replayed. brokers is the group's Kafka user. Replaying
// again what was replayed is harmless (processed events are deduplicated),
// but not done: a dead letter counts as replayed once a replay of it
// follows, and one that fails again is parked again, as a new dead letter.
func ReplayDeadLetters(ctx context.Context, brokers Brokers, group string, pick func(DeadLetter) bool) ([]DeadLetter, error) {
	all, err := DeadLetters(ctx, brokers, group)
	if err != nil {
		return nil, err
	}
	topic := DeadLetterTopic(group)
	var todo []DeadLetter
	var msgs []Message
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, d := range all {
		if d.Replayed || d.ID == "" || (pick != nil && !pick(d)) {
			continue
		}
		h := make(map[string]string, len(d.headers)+2)
		for k, v := range d.headers {
			h[k] = v
		}
		delete(h, ErrorHeader)
		h[ReplayOfHeader] = d.Ref()
		h[ReplayedAtHeader] = now
		todo = append(todo, d)
		msgs = append(msgs, Message{Topic: topic, Key: d.key, Value: d.value, Headers: h})
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	pub := NewKafkaPublisher(brokers, nil)
	defer pub.Close()
	if err := pub.Publish(ctx, msgs...); err != nil {
		return nil, fmt.Errorf("events: replay %d dead letters of %s: %w", len(msgs), group, err)
	}
	for i := range todo {
		todo[i].Replayed = true
	}
	return todo, nil
}
