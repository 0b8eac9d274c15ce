package events

// Dead letters. Each consumer group parks the events it gives up on in a
// dead-letter topic of its own, "dlq.<group>", which only the group's Kafka
// user may write and read (deploy/modules: a module's user has the topics
// "dlq.<module>" and "dlq.<module>.*", as it has the groups "<module>" and
// "<module>.*"). A replay goes back into that same topic, as a copy of the
// parked record marked ReplayOfHeader (the operator's command lists and
// replays them: deploy/deadletters); the group's consumer reads its
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
	"fmt"
	"regexp"
	"slices"

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

// CheckGroupName refuses a group whose dead-letter topic Kafka could not
// name: RunConsumer refuses to start it, and there is nothing to list or
// replay of it.
func CheckGroupName(group string) error {
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
	h := HeadersFromKafka(msg.Headers)
	source := h[SourceTopicHeader]
	if _, replay := h[ReplayOfHeader]; !replay || source == "" || source == c.dlqTopic {
		return msg, false
	}
	// A replay from a topic the group no longer reads is handled all the
	// same (this group parked it): the topic only names its records.
	msg.Topic = source
	return msg, true
}
