// Package deadletters lists the events a consumer group parked in its
// dead-letter topic and replays them to that group alone: the operator's
// side of the dead letters (`marketplace dead-letters`). The consumer's side,
// parking and handling replays, is libs/events (deadletter.go), which says
// why a replay goes back into the group's own topic (docs/adr/0045).
package deadletters

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
)

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

// Ref is "<partition>/<offset>", as events.ReplayOfHeader names it.
func (d DeadLetter) Ref() string { return fmt.Sprintf("%d/%d", d.Partition, d.Offset) }

// List is the events group parked and its dead-letter topic still retains,
// oldest first per partition, each marked Replayed when a replay of it
// follows. brokers is the group's Kafka user (no other may read its
// dead-letter topic).
func List(ctx context.Context, brokers events.Brokers, group string) ([]DeadLetter, error) {
	if err := events.CheckGroupName(group); err != nil {
		return nil, err
	}
	topic := events.DeadLetterTopic(group)
	tr := brokers.Transport("marketplace-dead-letters")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	// The topic's partitions, asked of the broker itself: the client's
	// metadata (of the topics the user may see) would say that a topic the
	// user may not read does not exist.
	if len(brokers.Addrs) == 0 {
		return nil, errors.New("dead-letters: no broker address")
	}
	conn, err := brokers.Dialer("marketplace-dead-letters").DialContext(ctx, "tcp", brokers.Addrs[0])
	if err != nil {
		return nil, fmt.Errorf("dead-letters: group %s: %w", group, err)
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if errors.Is(err, kafka.UnknownTopicOrPartition) {
		return nil, nil // the group never ran: nothing parked
	}
	if err != nil {
		return nil, fmt.Errorf("dead-letters: group %s: topic %s: %w", group, topic, err)
	}
	var req []kafka.OffsetRequest
	for _, p := range parts {
		req = append(req, kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
	}
	offsets, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: req}})
	if err != nil {
		return nil, fmt.Errorf("dead-letters: group %s: %w", group, err)
	}
	var parked []DeadLetter
	replayed := map[string]bool{}
	for _, p := range offsets.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("dead-letters: group %s: partition %d: %w", group, p.Partition, p.Error)
		}
		msgs, err := readPartition(ctx, brokers, topic, p.Partition, p.FirstOffset, p.LastOffset)
		if err != nil {
			return nil, fmt.Errorf("dead-letters: group %s: partition %d: %w", group, p.Partition, err)
		}
		for _, m := range msgs {
			h := events.HeadersFromKafka(m.Headers)
			if ref, ok := h[events.ReplayOfHeader]; ok {
				replayed[ref] = true
				continue
			}
			d := DeadLetter{Partition: m.Partition, Offset: m.Offset, Topic: h[events.SourceTopicHeader], Error: h[events.ErrorHeader],
				ParkedAt: m.Time, key: m.Key, value: m.Value, headers: h}
			if env, err := events.Decode(m.Value); err == nil {
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
func readPartition(ctx context.Context, brokers events.Brokers, topic string, partition int, first, end int64) ([]kafka.Message, error) {
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

// Replay replays the events group parked that are not replayed yet and that
// pick accepts (nil: all), in the group's dead-letter topic, where the
// group's consumers read them and handle them as events of the topic they
// were parked from; no other group sees them. It returns the dead letters it
// replayed. brokers is the group's Kafka user. Replaying again what was
// replayed is harmless (processed events are deduplicated), but not done: a
// dead letter counts as replayed once a replay of it follows, and one that
// fails again is parked again, as a new dead letter. A message that is no
// event is listed, never replayed.
func Replay(ctx context.Context, brokers events.Brokers, group string, pick func(DeadLetter) bool) ([]DeadLetter, error) {
	all, err := List(ctx, brokers, group)
	if err != nil {
		return nil, err
	}
	topic := events.DeadLetterTopic(group)
	var todo []DeadLetter
	var msgs []events.Message
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, d := range all {
		if d.Replayed || d.ID == "" || (pick != nil && !pick(d)) {
			continue
		}
		h := maps.Clone(d.headers)
		delete(h, events.ErrorHeader)
		h[events.ReplayOfHeader] = d.Ref()
		h[events.ReplayedAtHeader] = now
		todo = append(todo, d)
		msgs = append(msgs, events.Message{Topic: topic, Key: d.key, Value: d.value, Headers: h})
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	pub := events.NewKafkaPublisher(brokers, nil)
	defer pub.Close()
	if err := pub.Publish(ctx, msgs...); err != nil {
		return nil, fmt.Errorf("dead-letters: replay %d dead letters of %s: %w", len(msgs), group, err)
	}
	for i := range todo {
		todo[i].Replayed = true
	}
	return todo, nil
}
