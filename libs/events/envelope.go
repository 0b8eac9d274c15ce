// Package events carries the platform's domain events: JSON CloudEvents-style
// envelopes on Kafka topics, written through a transactional outbox so that no
// event is lost between a state change and its publication, and consumed at
// least once by idempotent consumers that remember the ids they processed.
package events

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// timeLayout is RFC 3339 with exactly three fractional digits, so every
// producer writes the same width whatever the clock's precision.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Envelope is what travels on every topic (JSON).
type Envelope struct {
	ID      string    `json:"id"`      // unique event id, "evt_" + 32 hex digits
	Type    string    `json:"type"`    // e.g. "order.created"
	Source  string    `json:"source"`  // producing service, e.g. "customers"
	Time    time.Time `json:"time"`    // RFC 3339 with milliseconds, UTC
	Subject string    `json:"subject"` // aggregate id; also the Kafka message key
	// DataSchema names the type and major version of Data (CloudEvents'
	// dataschema): DataSchemaOf(Type, major), e.g.
	// "urn:marketplace:event:order.created:v1". Empty in envelopes of
	// producers that predate versions: those carry version 1 (Version).
	DataSchema string `json:"dataschema,omitempty"`
	// Copies names the event's copies in other major versions, published
	// beside this one during a deprecation window (versions.go): "v1:<digest>"
	// entries, comma-separated, each the version and content digest of one
	// copy. Empty when the event is published in one version.
	Copies string          `json:"copies,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// MarshalJSON writes Time with millisecond precision.
func (e Envelope) MarshalJSON() ([]byte, error) {
	type plain Envelope // drops the method set, so no recursion
	return json.Marshal(struct {
		plain
		Time string `json:"time"`
	}{plain: plain(e), Time: e.Time.UTC().Format(timeLayout)})
}

// Decode parses and checks an envelope read from a topic. Its dataschema is
// not checked here (a consumer parks a version it cannot read, versions.go);
// a copies attribute that does not parse is an error.
func Decode(b []byte) (Envelope, error) {
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return Envelope{}, fmt.Errorf("events: decode envelope: %w", err)
	}
	if env.ID == "" || env.Type == "" {
		return Envelope{}, errors.New("events: decode envelope: id and type are required")
	}
	if _, err := parseCopies(env.Copies); err != nil {
		return Envelope{}, fmt.Errorf("events: decode envelope %s: %w", env.ID, err)
	}
	return env, nil
}

// NewID returns a random event id.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("events: random id: %w", err)
	}
	return "evt_" + hex.EncodeToString(b[:]), nil
}
