package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
)

// ACL allows a Kafka user one operation on a resource, as Kafka's simple
// authorizer (and Strimzi's KafkaUser) says it. A user held to ACLs may do
// only what one of them allows; Describe comes with Read and Write.
type ACL struct {
	Resource  string // ResourceTopic or ResourceGroup
	Name      string // the resource's name, or the start of its names when Prefix
	Prefix    bool
	Operation string // OpRead, OpWrite, OpCreate or OpDescribe
}

// The resources and operations the platform's ACLs use, in Kafka's words.
const (
	ResourceTopic = "topic"
	ResourceGroup = "group"

	OpRead     = "Read"
	OpWrite    = "Write"
	OpCreate   = "Create"
	OpDescribe = "Describe"
)

func (a ACL) String() string {
	pattern := "literal"
	if a.Prefix {
		pattern = "prefix"
	}
	return fmt.Sprintf("%s %s %s:%s", a.Operation, a.Resource, pattern, a.Name)
}

// CompareACLs orders ACLs by resource, name, pattern and operation.
func CompareACLs(a, b ACL) int {
	pa, pb := 0, 0
	if a.Prefix {
		pa = 1
	}
	if b.Prefix {
		pb = 1
	}
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Name, b.Name), cmp.Compare(pa, pb), cmp.Compare(a.Operation, b.Operation))
}

// kafkaACL is a as an ALLOW entry for user.
func (a ACL) kafkaACL(user string) (kafka.ACLEntry, error) {
	e := kafka.ACLEntry{ResourceName: a.Name, ResourcePatternType: kafka.PatternTypeLiteral, Principal: "User:" + user, Host: "*",
		PermissionType: kafka.ACLPermissionTypeAllow}
	if a.Prefix {
		e.ResourcePatternType = kafka.PatternTypePrefixed
	}
	switch a.Resource {
	case ResourceTopic:
		e.ResourceType = kafka.ResourceTypeTopic
	case ResourceGroup:
		e.ResourceType = kafka.ResourceTypeGroup
	default:
		return e, fmt.Errorf("ACL %s: unknown resource %q (topic or group)", a, a.Resource)
	}
	switch a.Operation {
	case OpRead:
		e.Operation = kafka.ACLOperationTypeRead
	case OpWrite:
		e.Operation = kafka.ACLOperationTypeWrite
	case OpCreate:
		e.Operation = kafka.ACLOperationTypeCreate
	case OpDescribe:
		e.Operation = kafka.ACLOperationTypeDescribe
	default:
		return e, fmt.Errorf("ACL %s: unknown operation %q (Read, Write, Create or Describe)", a, a.Operation)
	}
	if a.Name == "" || (a.Name == "*" && !a.Prefix) {
		return e, fmt.Errorf("ACL %s: a resource name is needed, and not the wildcard", a)
	}
	return e, nil
}

// ACLUser is a SASL user of the embedded broker held to its ACLs.
type ACLUser struct {
	Credentials
	ACLs []ACL
}

// createACLs gives each user its ACLs, as the broker's first (super)user.
// They go through the protocol, as topics do: kfake ignores configured ACLs
// when it reloads its state from a data directory.
func (b *Broker) createACLs(users []ACLUser) error {
	var entries []kafka.ACLEntry
	for _, u := range users {
		for _, a := range u.ACLs {
			e, err := a.kafkaACL(u.Username)
			if err != nil {
				return fmt.Errorf("events: broker user %s: %w", u.Username, err)
			}
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	brokers := b.Brokers()
	tr := brokers.Transport("marketplace-acls")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.CreateACLs(ctx, &kafka.CreateACLsRequest{ACLs: entries})
	if err != nil {
		return fmt.Errorf("events: broker: create the users' ACLs: %w", err)
	}
	var errs []error
	for i, err := range resp.Errors {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", entries[i].Principal, entries[i].ResourceName, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("events: broker: create the users' ACLs: %w", err)
	}
	return nil
}

// SortACLs sorts acls and drops repeats.
func SortACLs(acls []ACL) []ACL {
	slices.SortFunc(acls, CompareACLs)
	return slices.Compact(acls)
}
