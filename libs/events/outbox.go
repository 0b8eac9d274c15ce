package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/liveset"
	"marketplace/libs/store"
)

var outboxCollection = liveset.Internal("outbox")

// outboxDoc is one event waiting to be published (one copy of it, when it is
// published in several versions).
type outboxDoc struct {
	// ID is the event's id; "<id>/v<major>" for its copies in older
	// versions (they share the event's id).
	ID string `bson:"_id"`
	// Seq orders the relay's reads. createdAt alone has only millisecond
	// precision in BSON, and two events of one aggregate written in the same
	// millisecond must still leave in the order they were added.
	Seq       int64             `bson:"seq"`
	Topic     string            `bson:"topic"`
	Key       string            `bson:"key"`
	Envelope  string            `bson:"envelope"` // the exact JSON that is published
	Headers   map[string]string `bson:"headers,omitempty"`
	CreatedAt time.Time         `bson:"createdAt"`
}

// Outbox writes events in the same transaction as the state change, so an
// event exists if and only if the change committed.
type Outbox struct {
	db       *store.DB
	source   string
	versions Versions
	lastSeq  atomic.Int64
}

// NewOutbox returns an outbox whose events name source as their producer.
// versions are the versions it publishes of each event type (from
// libs/contracts/events): Add refuses a type without any.
func NewOutbox(db *store.DB, source string, versions Versions) *Outbox {
	return &Outbox{db: db, source: source, versions: versions}
}

// Add records an event. ctx must be the one db.Tx hands to its function: an
// Add outside a transaction is written at once and would survive a rollback
// of the state change it describes. The envelope's dataschema names the
// version the type is published in. data is marshalled to JSON (a
// json.RawMessage is taken as is); for a type published in several versions
// (a deprecation window, versions.go) it must be a ByVersion holding the
// data in each of them, and one envelope per version is written, all in one
// insert and with the event's id, each naming the others in its copies.
// Add returns the envelope of the current version. The trace context in ctx
// travels with the event.
func (o *Outbox) Add(ctx context.Context, topic, eventType, subject string, data any) (Envelope, error) {
	if topic == "" || eventType == "" {
		return Envelope{}, errors.New("events: outbox add: topic and event type are required")
	}
	versions := o.versions[eventType]
	if err := checkVersions(eventType, versions); err != nil {
		return Envelope{}, fmt.Errorf("events: outbox add %s: the versions it is published in (libs/contracts/events): %w", eventType, err)
	}
	payloads, err := payloadsOf(eventType, versions, data)
	if err != nil {
		return Envelope{}, err
	}
	id, err := NewID()
	if err != nil {
		return Envelope{}, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	envs := make([]Envelope, len(versions))
	refs := make([]copyRef, len(versions))
	for i, v := range versions {
		raw, err := json.Marshal(payloads[i])
		if err != nil {
			return Envelope{}, fmt.Errorf("events: outbox add %s: marshal data of version %d: %w", eventType, v, err)
		}
		raw = withNextPayload(raw) // the nextversion build's added field (nextversion.go)
		envs[i] = Envelope{ID: id, Type: eventType, Source: o.source, Time: now, Subject: subject, DataSchema: DataSchemaOf(eventType, v), Data: raw}
		refs[i] = copyRef{version: v, digest: contentDigest(envs[i])}
	}
	headers := InjectTrace(ctx)
	docs := make([]any, len(envs))
	for i := range envs {
		if len(envs) > 1 {
			envs[i].Copies = formatCopies(slices.Delete(slices.Clone(refs), i, i+1))
		}
		body, err := json.Marshal(envs[i])
		if err != nil {
			return Envelope{}, fmt.Errorf("events: outbox add %s: marshal envelope: %w", eventType, err)
		}
		docID := id
		if i > 0 {
			docID = id + "/v" + strconv.Itoa(versions[i])
		}
		docs[i] = outboxDoc{
			ID:        docID,
			Seq:       o.nextSeq(),
			Topic:     topic,
			Key:       subject,
			Envelope:  string(body),
			Headers:   headers,
			CreatedAt: now,
		}
	}
	coll := o.db.Collection(outboxCollection)
	if len(docs) == 1 {
		_, err = coll.InsertOne(ctx, docs[0])
	} else {
		_, err = coll.InsertMany(ctx, docs)
	}
	if err != nil {
		return Envelope{}, fmt.Errorf("events: outbox add %s: %w", eventType, err)
	}
	return envs[0], nil
}

// payloadsOf is data in each of versions, in their order.
func payloadsOf(eventType string, versions []int, data any) ([]any, error) {
	byVersion, ok := data.(ByVersion)
	if !ok {
		if len(versions) > 1 {
			return nil, fmt.Errorf("events: outbox add %s: it is published in versions %s: its data must be an events.ByVersion holding each", eventType, versionList(versions))
		}
		return []any{data}, nil
	}
	if len(byVersion) != len(versions) {
		return nil, fmt.Errorf("events: outbox add %s: data in %d versions, it is published in versions %s", eventType, len(byVersion), versionList(versions))
	}
	out := make([]any, len(versions))
	for i, v := range versions {
		d, ok := byVersion[v]
		if !ok {
			return nil, fmt.Errorf("events: outbox add %s: no data of version %d (it is published in versions %s)", eventType, v, versionList(versions))
		}
		out[i] = d
	}
	return out, nil
}

// nextSeq is the wall clock in nanoseconds, bumped so it never repeats or goes
// back within this process even when the clock does.
func (o *Outbox) nextSeq() int64 {
	for {
		last := o.lastSeq.Load()
		next := max(time.Now().UnixNano(), last+1)
		if o.lastSeq.CompareAndSwap(last, next) {
			return next
		}
	}
}

// Indexes serves the relay's oldest-first scan.
func (o *Outbox) Indexes() []store.Index {
	return []store.Index{{Collection: outboxCollection, Keys: bson.D{{Key: "seq", Value: 1}}, Name: "outbox_seq"}}
}

// AddWrites records what a transaction changed on the service's live topic
// (liveset.TopicOf), keyed by the service: the gateway re-runs the live
// queries whose reads it touches, whichever replica or consumer made the
// write. ctx must be the transaction's (liveset.Tracking.SetPublisher's publisher calls it
// inside, before the commit). These events are the gateway's, not a
// contract: their type is liveset.EventType and their data liveset.Writes.
func (o *Outbox) AddWrites(ctx context.Context, w *liveset.Writes) (string, error) {
	id, err := NewID()
	if err != nil {
		return "", err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	env := Envelope{ID: id, Type: liveset.EventType, Source: o.source, Time: now, Subject: o.source, Data: json.RawMessage(w.Encode())}
	body, err := json.Marshal(env)
	if err != nil {
		return "", fmt.Errorf("events: outbox add writes: %w", err)
	}
	doc := outboxDoc{ID: id, Seq: o.nextSeq(), Topic: liveset.TopicOf(o.source), Key: o.source, Envelope: string(body), CreatedAt: now}
	if _, err := o.db.Collection(outboxCollection).InsertOne(ctx, doc); err != nil {
		return "", fmt.Errorf("events: outbox add writes: %w", err)
	}
	return id, nil
}
