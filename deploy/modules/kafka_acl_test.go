package modules

import (
	"slices"
	"strings"
	"testing"

	"marketplace/libs/events"
	"marketplace/libs/service"
	"marketplace/services/customers"
	"marketplace/services/notifications"
	"marketplace/services/payouts"
)

// allows is Kafka's simple authorizer on acls (all ALLOW): an ACL matches
// the resource by its name, or by prefix, and the operation, Describe coming
// with Read and Write.
func allows(acls []events.ACL, resource, name, op string) bool {
	for _, a := range acls {
		if a.Resource != resource {
			continue
		}
		if a.Prefix && !strings.HasPrefix(name, a.Name) || !a.Prefix && a.Name != name {
			continue
		}
		if a.Operation == op || op == events.OpDescribe && (a.Operation == events.OpRead || a.Operation == events.OpWrite) {
			return true
		}
	}
	return false
}

// The ACLs say what the rule says, for every user and every topic: a module
// writes the topics it publishes, reads the topics it consumes and nothing
// else, joins its own consumer groups only (and none when it consumes
// nothing), and writes and reads the dead-letter topics of its own groups
// only (no other module's: what it parks reaches its group alone); the
// gateway reads every topic a module publishes or consumes, writes none,
// touches no dead-letter topic, joins no group and describes the consumers'
// groups. There is a user per module and the gateway's, and no module takes
// the gateway's name.
func TestKafkaACLsFollowTheModuleList(t *testing.T) {
	acls := KafkaACLs(All)
	if len(acls) != len(All)+1 || acls[Gateway] == nil {
		t.Fatalf("users %d, want one per module and the gateway's", len(acls))
	}
	topics := Topics(All)
	all := slices.Clone(topics)
	// dlqOf: each module's groups' dead-letter topics, and one that only
	// starts with its name.
	dlqOf := map[string][]string{}
	for _, m := range All {
		dlqOf[m.Name] = []string{events.DeadLetterTopic(m.Name), events.DeadLetterTopic(m.Name + ".projection")}
		all = append(all, append(dlqOf[m.Name], events.DeadLetterTopic(m.Name+"x"), m.Name+".dlq")...)
	}
	for _, m := range All {
		if m.Name == Gateway {
			t.Fatalf("a module is named %q, the gateway's Kafka user", Gateway)
		}
		a := acls[m.Name]
		for _, tp := range all {
			ownDLQ := len(m.Consumes) > 0 && slices.Contains(dlqOf[m.Name], tp)
			if got, want := allows(a, events.ResourceTopic, tp, events.OpWrite), slices.Contains(m.Publishes, tp) || tp == m.LiveTopic() || ownDLQ; got != want {
				t.Errorf("%s may write %s: %v, want %v", m.Name, tp, got, want)
			}
			if got, want := allows(a, events.ResourceTopic, tp, events.OpRead), slices.Contains(m.Consumes, tp) || ownDLQ; got != want {
				t.Errorf("%s may read %s: %v, want %v", m.Name, tp, got, want)
			}
			// Create only what it writes or reads itself.
			if allows(a, events.ResourceTopic, tp, events.OpCreate) && !allows(a, events.ResourceTopic, tp, events.OpDescribe) {
				t.Errorf("%s may create %s, which it neither writes nor reads", m.Name, tp)
			}
		}
		for _, other := range All {
			for _, g := range []string{other.Name, other.Name + ".projection", other.Name + "x"} {
				want := other.Name == m.Name && len(m.Consumes) > 0 && g != other.Name+"x"
				if got := allows(a, events.ResourceGroup, g, events.OpRead); got != want {
					t.Errorf("%s may join group %s: %v, want %v", m.Name, g, got, want)
				}
			}
		}
	}
	gw := acls[Gateway]
	for _, tp := range all {
		if allows(gw, events.ResourceTopic, tp, events.OpWrite) || allows(gw, events.ResourceTopic, tp, events.OpCreate) {
			t.Errorf("the gateway may write or create %s", tp)
		}
		if got, want := allows(gw, events.ResourceTopic, tp, events.OpRead), slices.Contains(topics, tp); got != want { // no dead-letter topic
			t.Errorf("the gateway may read %s: %v, want %v", tp, got, want)
		}
	}
	for _, m := range All {
		for _, g := range []string{m.Name, m.Name + ".projection"} {
			if allows(gw, events.ResourceGroup, g, events.OpRead) {
				t.Errorf("the gateway may join group %s", g)
			}
			if got, want := allows(gw, events.ResourceGroup, g, events.OpDescribe), len(m.Consumes) > 0; got != want {
				t.Errorf("the gateway may describe group %s: %v, want %v", g, got, want)
			}
		}
	}

	// The forgery of the issue: reviews may not write the orders topic, and
	// the consumers that move money read it.
	if allows(acls["reviews"], events.ResourceTopic, customers.TopicOrders, events.OpWrite) {
		t.Error("reviews may write orders")
	}
	if !allows(acls["customers"], events.ResourceTopic, customers.TopicOrders, events.OpWrite) ||
		!allows(acls["payouts"], events.ResourceTopic, customers.TopicOrders, events.OpRead) {
		t.Error("customers may not write orders, or payouts may not read them")
	}
	// The consumer groups the services name are theirs, and so are their
	// dead-letter topics. The finding of issue 29: notifications, a
	// consumer of orders, could write the orders' dead-letter topic, which
	// an operator replayed into orders, read by payouts.
	for _, g := range []struct{ module, group string }{{"payouts", payouts.GroupID}, {"notifications", notifications.GroupID}} {
		if !allows(acls[g.module], events.ResourceGroup, g.group, events.OpRead) {
			t.Errorf("%s may not join its group %s", g.module, g.group)
		}
		if !allows(acls[g.module], events.ResourceTopic, events.DeadLetterTopic(g.group), events.OpWrite) {
			t.Errorf("%s may not park in its group's dead-letter topic", g.module)
		}
	}
	if allows(acls["notifications"], events.ResourceTopic, events.DeadLetterTopic(payouts.GroupID), events.OpWrite) ||
		allows(acls["notifications"], events.ResourceTopic, customers.TopicOrders+".dlq", events.OpWrite) {
		t.Error("notifications may write a dead-letter topic that reaches payouts")
	}
}

// Adding a module gives it a user and its rights, and the gateway reads its
// topics: the ACLs follow the list they are given.
func TestKafkaACLsOfAnotherList(t *testing.T) {
	ms := []service.Module{
		{Name: "shop", Publishes: []string{"sales"}},
		{Name: "ledger", Consumes: []string{"sales"}, Publishes: []string{"entries"}},
	}
	acls := KafkaACLs(ms)
	want := map[string][]string{
		"shop": {"Create topic literal:live.shop", "Create topic literal:sales", "Write topic literal:live.shop", "Write topic literal:sales"},
		"ledger": {"Create topic literal:dlq.ledger", "Create topic literal:entries", "Create topic literal:live.ledger", "Create topic literal:sales", "Create topic prefix:dlq.ledger.",
			"Read group literal:ledger", "Read group prefix:ledger.", "Read topic literal:dlq.ledger", "Read topic literal:sales", "Read topic prefix:dlq.ledger.",
			"Write topic literal:dlq.ledger", "Write topic literal:entries", "Write topic literal:live.ledger", "Write topic prefix:dlq.ledger."},
		Gateway: {"Describe group literal:ledger", "Describe group prefix:ledger.", "Read topic literal:entries", "Read topic literal:live.ledger", "Read topic literal:live.shop", "Read topic literal:sales"},
	}
	if len(acls) != len(want) {
		t.Fatalf("users %v", acls)
	}
	for user, w := range want {
		var got []string
		for _, a := range acls[user] {
			got = append(got, a.String())
		}
		slices.Sort(got)
		if !slices.Equal(got, w) {
			t.Errorf("%s: %q, want %q", user, got, w)
		}
	}
	users := KafkaUsers(ms)
	if len(users) != 3 || users[0].Username != Gateway || users[1].Username != "ledger" || users[2].Username != "shop" {
		t.Fatalf("users %+v", users)
	}
	for _, u := range users {
		if u.Mechanism != events.SASLScramSHA512 || len(u.Password) < 20 || !slices.Equal(u.ACLs, acls[u.Username]) {
			t.Errorf("user %s: %s, %d characters, %d ACLs", u.Username, u.Mechanism, len(u.Password), len(u.ACLs))
		}
	}
}
