package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
)

const outboxCollection = "outbox"

// outboxDoc is one event waiting to be published.
type outboxDoc struct {
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
	db      *store.DB
	source  string
	lastSeq atomic.Int64
}

// NewOutbox returns an outbox whose events name source as their producer.
func NewOutbox(db *store.DB, source string) *Outbox {
	return &Outbox{db: db, source: source}
}

// Add records an event. ctx must be the one db.Tx hands to its function: an
// Add outside a transaction is written at once and would survive a rollback
// of the state change it describes. data is marshalled to JSON (a
// json.RawMessage is taken as is). The trace context in ctx travels with the
// event.
func (o *Outbox) Add(ctx context.Context, topic, eventType, subject string, data any) (Envelope, error) {
	if topic == "" || eventType == "" {
		return Envelope{}, errors.New("events: outbox add: topic and event type are required")
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: outbox add %s: marshal data: %w", eventType, err)
	}
	raw = withNextPayload(raw) // the nextversion build's added field (nextversion.go)
	id, err := NewID()
	if err != nil {
		return Envelope{}, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	env := Envelope{ID: id, Type: eventType, Source: o.source, Time: now, Subject: subject, Data: raw}
	body, err := json.Marshal(env)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: outbox add %s: marshal envelope: %w", eventType, err)
	}
	doc := outboxDoc{
		ID:        id,
		Seq:       o.nextSeq(),
		Topic:     topic,
		Key:       subject,
		Envelope:  string(body),
		Headers:   InjectTrace(ctx),
		CreatedAt: now,
	}
	if _, err := o.db.Collection(outboxCollection).InsertOne(ctx, doc); err != nil {
		return Envelope{}, fmt.Errorf("events: outbox add %s: %w", eventType, err)
	}
	return env, nil
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
