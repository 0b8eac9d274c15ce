package systemtest

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/modules"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
	"marketplace/libs/liveset"
	"marketplace/libs/service"
)

// KafkaRights are the topics a Kafka user may write and read.
type KafkaRights struct {
	Write, Read []string
}

// KafkaRightsOf says, from the module list and in the rule's own words, what
// each Kafka user may do (tests hold the brokers to it, whatever ACLs
// modules.KafkaACLs computes): a module writes the topics it publishes and its
// live topic (its committed writes, for live queries), reads the topics it
// consumes, and writes and reads its consumer groups' own dead-letter topics
// (DeadLetterTopicsOf); the gateway reads every topic a module publishes or
// consumes and writes none.
func KafkaRightsOf(ms []service.Module) map[string]KafkaRights {
	out := map[string]KafkaRights{}
	for _, m := range ms {
		dlq := DeadLetterTopicsOf(m)
		out[m.Name] = KafkaRights{Write: append(append([]string{m.LiveTopic()}, m.Publishes...), dlq...), Read: append(slices.Clone(m.Consumes), dlq...)}
	}
	out[modules.Gateway] = KafkaRights{Read: modules.Topics(ms)}
	return out
}

// DeadLetterTopicsOf are the dead-letter topics of a group "<module>" and of
// a group "<module>.probe" of m, none when m consumes nothing.
func DeadLetterTopicsOf(m service.Module) []string {
	if len(m.Consumes) == 0 {
		return nil
	}
	return []string{events.DeadLetterTopic(m.Name), events.DeadLetterTopic(m.Name + ".probe")}
}

// KafkaTopics are every topic of ms, as the embedded broker makes them (the
// consumer groups' dead-letter topics are made by their consumers).
func KafkaTopics(ms []service.Module) []string {
	return modules.Topics(ms)
}

// ProbeEvent is what CheckKafkaRights writes where a user may write: an
// envelope of a type no consumer declares, which consumers acknowledge
// without handling.
func ProbeEvent(user string) []byte {
	id, _ := events.NewID()
	b, _ := json.Marshal(events.Envelope{ID: id, Type: "acl.probe", Source: user, Time: time.Now().UTC(), Subject: "acl-probe", Data: json.RawMessage(`{}`)})
	return b
}

// CheckKafkaRights has the broker answer, as each user of ms (and the
// gateway's; as reaches the user), a write and a read of every topic, of
// every module's dead-letter topics (DeadLetterTopicsOf, which each module
// creates first, after every other user was refused their creation), of a
// topic named as a module's dead-letter topic with more after the name
// ("dlq.<module>probe") and of what each consumed topic's dead-letter topic
// was before they were the groups' ("<topic>.dlq", which every consumer of
// the topic wrote), and a join of every module's consumer groups: each is
// allowed exactly when KafkaRightsOf says, and a module that consumes joins
// its own groups only ("<module>" and "<module>.<what>", not
// "<module><more>"). Allowed writes put a ProbeEvent on the topic (a record
// in a dead-letter topic that is no replay: its group's consumer skips it).
func CheckKafkaRights(t *testing.T, ms []service.Module, as func(user string) events.Brokers) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rights := KafkaRightsOf(ms)
	verdict := func(user, what string, want bool, err error) {
		t.Helper()
		switch {
		case want && err != nil:
			t.Errorf("%s: %s refused: %v", user, what, err)
		case !want && !eventstest.Refused(err):
			t.Errorf("%s: %s: %v, want refused by the broker's ACLs", user, what, err)
		}
	}
	users := slices.Sorted(maps.Keys(rights))
	topics := KafkaTopics(ms)
	for _, m := range ms {
		dlq := DeadLetterTopicsOf(m)
		if len(dlq) == 0 {
			continue
		}
		// Others first: once it exists, a creation may answer that it does.
		for _, user := range append(slices.DeleteFunc(slices.Clone(users), func(u string) bool { return u == m.Name }), m.Name) {
			err := events.EnsureTopics(ctx, as(user), -1, -1, dlq...)
			verdict(user, "create "+strings.Join(dlq, ", "), user == m.Name, err)
		}
		topics = append(topics, dlq...)
	}
	for _, m := range ms {
		topics = append(topics, events.DeadLetterTopic(m.Name)+"probe")
	}
	for _, tp := range modules.Topics(ms) {
		if !strings.HasPrefix(tp, liveset.TopicPrefix) {
			topics = append(topics, tp+".dlq")
		}
	}
	for _, user := range users {
		r, b := rights[user], as(user)
		for _, topic := range topics {
			verdict(user, "write "+topic, slices.Contains(r.Write, topic), eventstest.Write(ctx, b, topic, ProbeEvent(user)))
			verdict(user, "read "+topic, slices.Contains(r.Read, topic), eventstest.Read(ctx, b, topic))
		}
		for _, m := range ms {
			for _, g := range []string{m.Name, m.Name + ".probe", m.Name + "probe"} {
				want := user == m.Name && len(m.Consumes) > 0 && g != m.Name+"probe"
				verdict(user, "join group "+g, want, eventstest.JoinGroup(ctx, b, g, topics[0]))
			}
		}
	}
}

// KafkaAs is the Kafka user of the program named name: a service, or
// modules.Gateway (which Info.Brokers also is).
func (s *Sys) KafkaAs(name string) events.Brokers {
	s.tb.Helper()
	b, ok := s.Kafka[name]
	if !ok {
		s.tb.Fatalf("no Kafka user %q (users: a service's name, %q)", name, modules.Gateway)
	}
	return b
}

// KafkaPublisherOf is the Kafka user of the service that publishes topic:
// the one user the broker lets write it.
func (s *Sys) KafkaPublisherOf(topic string) events.Brokers {
	s.tb.Helper()
	for _, m := range modules.All {
		if slices.Contains(m.Publishes, topic) {
			return s.KafkaAs(m.Name)
		}
	}
	s.tb.Fatalf("no module publishes %s", topic)
	return events.Brokers{}
}
