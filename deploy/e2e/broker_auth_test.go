package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/modules"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
)

// The all-in-one's embedded broker requires the users made for the run: a
// client without credentials, or with a wrong password, is refused every
// request (reading the topics' metadata, publishing a forged event) and told
// why; each program's own credentials pass.
func TestEmbeddedBrokerRequiresTheRunsCredentials(t *testing.T) {
	s := st.Start(t)
	for _, name := range append(modules.Names(), modules.Gateway) {
		if b := s.KafkaAs(name); b.SASL == nil || b.SASL.Name() != events.SASLScramSHA512 {
			t.Fatalf("%s's Kafka user %+v: want SCRAM-SHA-512 credentials", name, b)
		}
	}
	wrong, err := events.KafkaSettings{KafkaBrokers: s.Brokers.Addrs, KafkaSASLMechanism: events.SASLScramSHA512,
		KafkaSASLUsername: "customers", KafkaSASLPassword: "guessed-password"}.Kafka()
	if err != nil {
		t.Fatal(err)
	}
	outsiders := []struct {
		name    string
		brokers events.Brokers
		want    string
	}{
		{"no credentials", events.Brokers{Addrs: s.Brokers.Addrs}, "requires authentication"},
		{"a guessed password", wrong, "refused the SASL credentials"},
	}
	for _, o := range outsiders {
		t.Run(o.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := o.brokers.Check(ctx, "outsider"); !errors.Is(err, events.ErrBrokerRefused) || !strings.Contains(err.Error(), o.want) {
				t.Fatalf("check = %v, want a refusal saying %q", err, o.want)
			}
			pub := events.NewKafkaPublisher(o.brokers, nil)
			defer pub.Close()
			if err := pub.Publish(ctx, events.Message{Topic: "orders", Key: []byte("o1"), Value: []byte(`{"forged":true}`)}); err == nil {
				t.Fatal("an outsider published on the all-in-one's broker")
			}
		})
	}
	// The run's own credentials pass the same check.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, name := range append(modules.Names(), modules.Gateway) {
		if err := s.KafkaAs(name).Check(ctx, "e2e"); err != nil {
			t.Fatalf("%s's credentials: %v", name, err)
		}
	}
}

// Issue 19: each service is its own Kafka user, allowed by the broker only
// what the module list declares. With a service's credentials, writing a
// topic it does not publish (reviews' user writing orders: an order
// delivered, as forged in issue 18) is refused by the broker, and so is
// reading a topic it does not consume or joining another's consumer group;
// what it publishes and consumes passes, for every service, the gateway
// (which reads the topics and writes none) and every topic; a consumer group's
// dead-letter topic is its module's only (issue 29: a consumer's user wrote
// "<topic>.dlq", which an operator replayed into the topic, read by every
// group). The services' consumers run in groups of their own, under their
// users: every group the consumers report is one of its module's, on topics
// that module consumes and its own dead-letter topic, and every module that
// consumes has one.
func TestKafkaUsersHoldEachServiceToItsTopics(t *testing.T) {
	s := st.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := eventstest.Write(ctx, s.KafkaAs("reviews"), customers.TopicOrders, st.ProbeEvent("reviews")); !eventstest.Refused(err) {
		t.Fatalf("reviews' user wrote on orders: %v, want refused by the broker", err)
	}
	if err := eventstest.Write(ctx, s.KafkaAs("customers"), customers.TopicOrders, st.ProbeEvent("customers")); err != nil {
		t.Fatalf("customers' user on orders, the topic it publishes: %v", err)
	}
	if err := eventstest.Read(ctx, s.KafkaAs("addresses"), customers.TopicOrders); !eventstest.Refused(err) {
		t.Fatalf("addresses' user read orders: %v, want refused by the broker", err)
	}
	if err := eventstest.Read(ctx, s.KafkaAs("payouts"), customers.TopicOrders); err != nil {
		t.Fatalf("payouts' user on orders, a topic it consumes: %v", err)
	}
	st.CheckKafkaRights(t, modules.All, s.KafkaAs)

	// The consumers' groups, as their lag metric names them once each has
	// read its group's offsets (under its own user).
	groups := map[string][]string{} // group -> topics
	eventually(t, "every consuming module's group reports its lag", func() bool {
		groups = consumerGroups(s.Metrics())
		for _, m := range modules.All {
			if len(m.Consumes) > 0 && !slices.ContainsFunc(mapKeys(groups), func(g string) bool { return groupOf(m.Name, g) }) {
				return false
			}
		}
		return true
	})
	t.Logf("consumer groups and their topics: %v", groups)
	for g, topics := range groups {
		owner := -1
		for i, m := range modules.All {
			if groupOf(m.Name, g) {
				owner = i
			}
		}
		if owner < 0 {
			t.Errorf("consumer group %s is no module's (a module's groups are <module> and <module>.<what>)", g)
			continue
		}
		m := modules.All[owner]
		for _, tp := range topics {
			if !slices.Contains(m.Consumes, tp) && tp != events.DeadLetterTopic(g) {
				t.Errorf("%s's group %s reads %s, which %s does not consume", m.Name, g, tp, m.Name)
			}
		}
		if !slices.Contains(topics, events.DeadLetterTopic(g)) {
			t.Errorf("group %s does not read its dead-letter topic %s (its replays): %v", g, events.DeadLetterTopic(g), topics)
		}
	}
}

// groupOf reports whether group is one of module's consumer groups.
func groupOf(module, group string) bool {
	return group == module || strings.HasPrefix(group, module+".")
}

// consumerGroups are the groups of the consumer lag metric, with their topics.
func consumerGroups(metrics string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(metrics, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil || m[1] != "marketplace_consumer_lag" {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		if g := labels["group"]; g != "" && !slices.Contains(out[g], labels["topic"]) {
			out[g] = append(out[g], labels["topic"])
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
