package events

// Versions of event payloads.
//
// Every envelope names the major version of its data in CloudEvents'
// dataschema attribute, "urn:marketplace:event:<type>:v<major>"; an envelope
// without one (written by a producer that predates versions, and still in
// outboxes and on topics) is version 1. A compatible change of a payload (an
// added optional field) keeps its major version: consumers ignore the fields
// they do not know (DecodeData). A breaking change is a new major version,
// published beside the old one for a deprecation window (expand/contract):
//
//   - A producer declares, per event type, the versions it publishes (NewOutbox,
//     from libs/contracts/events): the current one, and during a window the
//     older ones too. Outbox.Add then takes the event's data in each of them
//     (ByVersion) and writes one envelope per version, all with the event's
//     id, in one insert. Each copy's copies attribute names the others by
//     version and content digest ("v1:<digest>,v2:<digest>").
//   - A consumer declares, per event type, the versions its handler reads
//     (ConsumerConfig.Handles). Of an event's copies (its own version and
//     those its copies attribute names) it handles the one in the highest
//     version it reads and acknowledges the others unhandled, whether it
//     knows their version or not: so an older consumer is not disturbed by a
//     newer version published beside the one it reads. An envelope none of
//     whose versions it reads is parked on the dead-letter topic at once,
//     with one log line and a metric, never retried and never guessed at. An
//     event type it does not declare is acknowledged unhandled.
//   - The processed records (dedupe.go) keep a handled copy's digest and
//     those of its copies, and a copy is a duplicate of a record of another
//     copy when each names the other: a consumer that moves to the new
//     version (and handles the new copy of an event whose old copy it
//     handled before the move, redelivered) handles the event once. Both
//     must name each other because the broker authenticates no publisher:
//     a forged copy can name the real one, but the real one never names a
//     forged one, so a forged copy can never make a real one a duplicate.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// dataSchemaPrefix starts every dataschema: a URN rather than a URL, since
// nothing is served there (contracts/events.openapi.json describes each
// version: x-marketplace.dataschema).
const dataSchemaPrefix = "urn:marketplace:event:"

// DataSchemaOf is the dataschema of an event type's data in a major version.
func DataSchemaOf(eventType string, version int) string {
	return dataSchemaPrefix + eventType + ":v" + strconv.Itoa(version)
}

// Version is the major version of env's data: the one its dataschema names,
// 1 when it has none. A dataschema that is not DataSchemaOf(env.Type, n) for
// a positive n is an error.
func (env Envelope) Version() (int, error) {
	if env.DataSchema == "" {
		return 1, nil
	}
	rest, ok := strings.CutPrefix(env.DataSchema, dataSchemaPrefix+env.Type+":v")
	if !ok {
		return 0, fmt.Errorf("dataschema %q is not %s<major>", env.DataSchema, dataSchemaPrefix+env.Type+":v")
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return 0, fmt.Errorf("dataschema %q: the major version is not a positive number", env.DataSchema)
	}
	return n, nil
}

// Versions maps event types to major versions of their payloads. A
// producer's (NewOutbox): the versions it publishes, the current one first,
// then any older one still published beside it for a deprecation window. A
// consumer's (ConsumerConfig.Handles): the versions its handler reads.
type Versions map[string][]int

// Check refuses a type without versions, a version below 1 and a version
// listed twice.
func (vs Versions) Check() error {
	for typ, list := range vs {
		if err := checkVersions(typ, list); err != nil {
			return err
		}
	}
	return nil
}

func checkVersions(typ string, list []int) error {
	if typ == "" {
		return fmt.Errorf("events: versions of an event type without a name")
	}
	if len(list) == 0 {
		return fmt.Errorf("events: %s: no version", typ)
	}
	for i, v := range list {
		if v < 1 {
			return fmt.Errorf("events: %s: version %d (versions start at 1)", typ, v)
		}
		if slices.Contains(list[:i], v) {
			return fmt.Errorf("events: %s: version %d listed twice", typ, v)
		}
	}
	return nil
}

// ByVersion is an event's data in each version its type is published in,
// for Outbox.Add during a deprecation window.
type ByVersion map[int]any

// DecodeData reads env's data, which must be a JSON object, into v (a
// pointer to the payload struct of the version the consumer reads). Fields v
// does not have are ignored: a producer may add optional fields without a new
// major version, and a consumer built before them must still read its events.
// Data that is missing or not an object, or a field of the wrong type, is an
// error.
func DecodeData(env Envelope, v any) error {
	raw := bytes.TrimSpace(env.Data)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%s %s: data must be a JSON object", env.Type, env.ID)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s %s: bad data: %w", env.Type, env.ID, err)
	}
	return nil
}

// copyRef names one copy of an event in another version: its version and
// its content digest.
type copyRef struct {
	version int
	digest  string
}

// maxCopies bounds the copies an envelope may name: an event is published in
// its current version and the few still in a deprecation window. More is no
// producer's envelope, and refusing it early keeps a forged one from costing
// a parse quadratic in its length at every look, and a processed record as
// large as the message.
const maxCopies = 16

// parseCopies reads a copies attribute: "v<major>:<64 hex digits>" entries,
// comma-separated, each version once, at most maxCopies.
func parseCopies(s string) ([]copyRef, error) {
	if s == "" {
		return nil, nil
	}
	if n := strings.Count(s, ",") + 1; n > maxCopies {
		return nil, fmt.Errorf("copies: %d entries, an event has at most %d copies", n, maxCopies)
	}
	var out []copyRef
	for entry := range strings.SplitSeq(s, ",") {
		v, digest, ok := strings.Cut(entry, ":")
		n, err := strconv.Atoi(strings.TrimPrefix(v, "v"))
		if !ok || !strings.HasPrefix(v, "v") || err != nil || n < 1 || "v"+strconv.Itoa(n) != v || !isDigest(digest) {
			return nil, fmt.Errorf("copies %q: an entry is not v<major>:<sha-256 hex>", s)
		}
		for _, c := range out {
			if c.version == n {
				return nil, fmt.Errorf("copies %q: version %d twice", s, n)
			}
		}
		out = append(out, copyRef{version: n, digest: digest})
	}
	return out, nil
}

func formatCopies(cs []copyRef) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = "v" + strconv.Itoa(c.version) + ":" + c.digest
	}
	return strings.Join(parts, ",")
}

func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// copyDigests are the digests env's copies attribute names (Decode checked it).
func copyDigests(env Envelope) []string {
	cs, _ := parseCopies(env.Copies)
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.digest
	}
	return out
}

// routing is what a consumer does with an envelope.
type routing int

const (
	handleIt routing = iota // its handler applies it
	skipIt                  // acknowledged unhandled: a type it does not read, or a copy of an event it handles in another version
	parkIt                  // dead-lettered at once: no version of it is one the consumer reads
)

// route decides what the consumer does with env, and in which version it
// handles it. why says why it is skipped or parked.
func (c *consumer) route(env Envelope) (r routing, version int, why string) {
	reads, ok := c.cfg.Handles[env.Type]
	if !ok {
		return skipIt, 0, "a type this consumer does not handle"
	}
	v, err := env.Version()
	if err != nil {
		return parkIt, 0, err.Error()
	}
	cs, _ := parseCopies(env.Copies)
	best := 0 // the highest version among the event's copies that this consumer reads
	if slices.Contains(reads, v) {
		best = v
	}
	for _, cp := range cs {
		if cp.version == v {
			return parkIt, v, fmt.Sprintf("its copies attribute names its own version %d", v)
		}
		if slices.Contains(reads, cp.version) {
			best = max(best, cp.version)
		}
	}
	switch best {
	case 0:
		return parkIt, v, fmt.Sprintf("version %d of %s, this consumer reads %s", v, env.Type, versionList(reads))
	case v:
		return handleIt, v, ""
	default:
		return skipIt, v, fmt.Sprintf("its copy in version %d is the one handled", best)
	}
}

func versionList(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// park dead-letters an envelope none of whose versions the consumer reads,
// without running the handler: a retry could not help, and reading the data
// as another version would be a guess. It returns false only when ctx ended
// first.
func (c *consumer) park(ctx context.Context, msg kafka.Message, headers map[string]string, env Envelope, version int, why string) bool {
	shown := strconv.Itoa(version)
	if version == 0 {
		shown = env.DataSchema // unreadable: as it came
	}
	c.logger.ErrorContext(ctx, "events: event version this consumer does not read, dead-lettering",
		"id", env.ID, "type", env.Type, "version", shown, "reads", versionList(c.cfg.Handles[env.Type]),
		"topic", msg.Topic, "partition", msg.Partition, "offset", msg.Offset)
	trace.SpanFromContext(ctx).SetStatus(codes.Error, "unknown version")
	c.versions.unknown(env.Type)
	return c.deadLetter(ctx, msg, headers, fmt.Errorf("events: unknown version: %s", why))
}

// versionStats count, per event type, the envelopes parked for their version
// and the events handled in each version.
type versionStats struct {
	mu      sync.Mutex
	parked  map[string]int64
	handled map[typeVersion]int64
}

type typeVersion struct {
	typ     string
	version int
}

// newVersionStats starts every declared type and version at 0, so the first
// parked envelope is an increase a rate() sees, and a group's handled series
// show the versions it reads before any event arrives.
func newVersionStats(handles Versions) *versionStats {
	s := &versionStats{parked: map[string]int64{}, handled: map[typeVersion]int64{}}
	for typ, vs := range handles {
		s.parked[typ] = 0
		for _, v := range vs {
			s.handled[typeVersion{typ, v}] = 0
		}
	}
	return s
}

func (s *versionStats) unknown(typ string) {
	s.mu.Lock()
	s.parked[typ]++
	s.mu.Unlock()
}

func (s *versionStats) handledOne(typ string, version int) {
	s.mu.Lock()
	s.handled[typeVersion{typ, version}]++
	s.mu.Unlock()
}

// observeVersions reports a consumer's version counts until stop is called:
//
//	marketplace_events_unknown_version_total{group, type}   envelopes parked for their version
//	marketplace_events_handled_total{group, type, version}  events handled, by the version read
//
// The second tells a producer's owner which groups still read an old version
// (the end of a deprecation window waits for none to).
func observeVersions(group string, s *versionStats) (stop func()) {
	meter := otel.GetMeterProvider().Meter(meterName)
	parked, err := meter.Int64ObservableCounter("marketplace.events.unknown_version",
		metric.WithDescription("Events the consumer group parked in the dead-letter topic because it reads none of their versions."))
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	handled, err := meter.Int64ObservableCounter("marketplace.events.handled",
		metric.WithDescription("Events the consumer group handled, by event type and the major version of the copy it read."))
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for typ, n := range s.parked {
			o.ObserveInt64(parked, n, metric.WithAttributes(attribute.String("group", group), attribute.String("type", typ)))
		}
		for tv, n := range s.handled {
			o.ObserveInt64(handled, n, metric.WithAttributes(attribute.String("group", group), attribute.String("type", tv.typ),
				attribute.String("version", strconv.Itoa(tv.version))))
		}
		return nil
	}, parked, handled)
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}
