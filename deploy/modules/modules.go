// Package modules is the one list of the platform's bounded contexts. Each is
// declared once, in its own package, with its name, its build function, the
// topics it publishes and consumes and the modules it calls
// (service.Module); this list is where they all meet. The all-in-one's start
// order, the embedded broker's topics, the gateway's default service list and
// the API reference come from it, and a test holds docker-compose.yml and k8s/
// to it. Adding a service touches this list, the service's own folder and the
// deploy files, nothing else.
package modules

import (
	"fmt"
	"slices"
	"strings"

	"marketplace/libs/events"
	"marketplace/libs/service"
	"marketplace/services/addresses"
	"marketplace/services/catalog"
	"marketplace/services/customers"
	"marketplace/services/media"
	"marketplace/services/notifications"
	"marketplace/services/payments"
	"marketplace/services/payouts"
	"marketplace/services/platformconfig"
	"marketplace/services/reviews"
)

// All are the platform's modules.
var All = []service.Module{
	catalog.Module,
	platformconfig.Module,
	customers.Module,
	addresses.Module,
	payments.Module,
	notifications.Module,
	media.Module,
	payouts.Module,
	reviews.Module,
}

// Names are the modules' names, in start order.
func Names() []string {
	order, _ := StartOrder(All)
	out := make([]string, len(order))
	for i, m := range order {
		out[i] = m.Name
	}
	return out
}

// Topics are every topic a module publishes or consumes, and their live
// topics (the writes that re-run live queries), sorted.
func Topics(ms []service.Module) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.LiveTopic())
		out = append(out, m.Publishes...)
		out = append(out, m.Consumes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Callers are the modules of ms that declare calls to the module named name,
// sorted: the services whose calls it accepts on its internal operations
// (INTERNAL_CALLERS).
func Callers(ms []service.Module, name string) []string {
	var out []string
	for _, m := range ms {
		if slices.Contains(m.Calls, name) {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Gateway is the Kafka user of the gateway, beside the modules' own (each
// module's user is named after it).
const Gateway = "gateway"

// KafkaACLs are what each Kafka user may do, by user: a module's user (its
// name) and the gateway's. They are the one source of the Kafka ACLs of
// every mode: the embedded broker's users (make run, make run-distributed)
// and the clusters' (k8s/kafka-users.yaml, held to them by a test).
//
// A module writes the topics it publishes and its live topic; it reads the
// topics it consumes in its consumer groups, named after it ("<module>" or
// "<module>.<what>"), and writes and reads its groups' own dead-letter
// topics (events.DeadLetterTopic: "dlq.<module>", "dlq.<module>.<what>"),
// which no other user may touch: what a consumer parks, and an operator
// replays there, reaches its own group only. It may create the topics it
// writes or reads (its consumers make sure their topics and dead-letter
// topic exist before reading, its publisher's first event may create its
// topic). Describe comes with Read and Write. The
// gateway reads every topic a module publishes or consumes, without a group,
// and describes the consumers' groups (their committed offsets: live queries
// re-run once the consumers are past an event). Nothing else: a module
// cannot write another's topics, read what it does not consume, or join
// another's groups.
func KafkaACLs(ms []service.Module) map[string][]events.ACL {
	out := map[string][]events.ACL{}
	topic := func(name, op string) events.ACL {
		return events.ACL{Resource: events.ResourceTopic, Name: name, Operation: op}
	}
	var gateway []events.ACL
	for _, m := range ms {
		acls := []events.ACL{}
		for _, t := range append([]string{m.LiveTopic()}, m.Publishes...) {
			acls = append(acls, topic(t, events.OpWrite), topic(t, events.OpCreate))
		}
		for _, t := range m.Consumes {
			acls = append(acls, topic(t, events.OpRead), topic(t, events.OpCreate))
		}
		if len(m.Consumes) > 0 {
			for _, g := range ConsumerGroups(m.Name) {
				acls = append(acls, events.ACL{Resource: events.ResourceGroup, Name: g.Name, Prefix: g.Prefix, Operation: events.OpRead})
				gateway = append(gateway, events.ACL{Resource: events.ResourceGroup, Name: g.Name, Prefix: g.Prefix, Operation: events.OpDescribe})
				// The groups' dead-letter topics, by the same names.
				for _, op := range []string{events.OpRead, events.OpWrite, events.OpCreate} {
					acls = append(acls, events.ACL{Resource: events.ResourceTopic, Name: events.DeadLetterTopic(g.Name), Prefix: g.Prefix, Operation: op})
				}
			}
		}
		out[m.Name] = events.SortACLs(acls)
	}
	for _, t := range Topics(ms) {
		gateway = append(gateway, topic(t, events.OpRead))
	}
	out[Gateway] = events.SortACLs(gateway)
	return out
}

// KafkaUsers are the Kafka users of an embedded broker for ms: one per
// module and the gateway's, each with a password made now and its
// KafkaACLs, sorted by name.
func KafkaUsers(ms []service.Module) []events.ACLUser {
	acls := KafkaACLs(ms)
	out := make([]events.ACLUser, 0, len(acls))
	for name, a := range acls {
		out = append(out, events.ACLUser{Credentials: events.NewUser(name), ACLs: a})
	}
	slices.SortFunc(out, func(a, b events.ACLUser) int { return strings.Compare(a.Username, b.Username) })
	return out
}

// ConsumerGroups are the names a module's consumer groups may take: its own
// name, or its name, a dot and what the group keeps ("addresses.places").
// A module named as the start of another's name ("pay", "payouts") could not
// take the other's groups: the prefix ends with the dot.
func ConsumerGroups(module string) []events.ACL {
	return []events.ACL{
		{Resource: events.ResourceGroup, Name: module},
		{Resource: events.ResourceGroup, Name: module + ".", Prefix: true},
	}
}

// StartOrder sorts ms so that every module starts after the modules it calls
// (those in ms), keeping the list's order otherwise. A call to a module that is
// not declared, or a cycle of calls, is an error.
func StartOrder(ms []service.Module) ([]service.Module, error) {
	byName := map[string]service.Module{}
	for _, m := range All {
		byName[m.Name] = m
	}
	in := map[string]bool{}
	for _, m := range ms {
		in[m.Name] = true
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var out []service.Module
	var visit func(m service.Module) error
	visit = func(m service.Module) error {
		switch state[m.Name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("modules: %s is part of a cycle of calls", m.Name)
		}
		state[m.Name] = visiting
		for _, c := range m.Calls {
			dep, ok := byName[c]
			if !ok {
				return fmt.Errorf("modules: %s calls %s, which is not a module", m.Name, c)
			}
			if !in[c] {
				continue // not run here (a partial system in a test)
			}
			if err := visit(dep); err != nil {
				return err
			}
		}
		state[m.Name] = done
		out = append(out, m)
		return nil
	}
	for _, m := range ms {
		if err := visit(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}
