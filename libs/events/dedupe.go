package events

// Which event a processed record stands for.
//
// The broker does not authenticate publishers, so an event's id proves
// nothing: anyone who reads a topic can publish another event under a real
// event's id. A record keyed by the id alone would then make whichever of the
// two arrives second a "duplicate": a forged event taken first would
// suppress the real one. So a processed record also holds a digest of the
// event's content (type, source, subject, data), and an event is a duplicate
// only of a record of the same content:
//
//   - The first event of an id is recorded under group/id (as before), with
//     its digest.
//   - An event whose id is recorded with another digest is another event: a
//     warning is logged, and it is handled and recorded under
//     group/id/digest (a redelivery of it is then a duplicate of that).
//   - A record without a digest was written by an earlier version: it is
//     honoured when its type and topic are the event's, so an upgrade does
//     not handle again the events processed before it (a redelivery after an
//     offset reset, a DLQ replay). Records are only ever written with a
//     digest now, so a forged event can no longer make such a record.
//
// A redelivered event (the same bytes, since the relay publishes the exact
// JSON its outbox stored) always has the same digest.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
)

// contentDigest is the hex SHA-256 of an event's type, source, subject and
// data (its data with insignificant whitespace removed; the id and time are
// left out: two events of the same content are the same event to a handler).
func contentDigest(env Envelope) string {
	h := sha256.New()
	field := func(h hash.Hash, b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field(h, []byte(env.Type))
	field(h, []byte(env.Source))
	field(h, []byte(env.Subject))
	data := []byte(env.Data)
	var compact bytes.Buffer
	if json.Compact(&compact, data) == nil {
		data = compact.Bytes()
	}
	field(h, data)
	return hex.EncodeToString(h.Sum(nil))
}

// processedKey is the key of an event's first record: group/id.
func (c *consumer) processedKey(id string) string { return c.cfg.GroupID + "/" + id }

// sameEvent tells whether a processed record stands for the event of topic
// with that digest.
func (d processedDoc) sameEvent(topic string, env Envelope, digest string) bool {
	if d.Digest != "" {
		return d.Digest == digest
	}
	// Written before digests: the type and topic are all it can be checked by.
	return d.Type == env.Type && d.Topic == topic
}

// dedupeKey is the key under which the event of topic with that digest is
// (or is to be) recorded, and whether it is recorded already. known holds
// the records read so far by key (the group/id ones of the transaction's
// events, and those recorded by it); a record of another event under the
// same id is read from coll's partitions when needed, and added to known.
func (c *consumer) dedupeKey(ctx context.Context, parts store.Partitioned, known map[string]processedDoc, topic string, env Envelope, digest string) (string, bool, error) {
	key := c.processedKey(env.ID)
	first, ok := known[key]
	if !ok {
		return key, false, nil
	}
	if first.sameEvent(topic, env, digest) {
		return key, true, nil
	}
	other := key + "/" + digest
	c.logger.WarnContext(ctx, "events: two different events share an id: not taken as a duplicate",
		"id", env.ID, "topic", topic, "type", env.Type, "subject", env.Subject, "digest", digest,
		"recordedTopic", first.Topic, "recordedType", first.Type, "recordedDigest", first.Digest)
	if _, ok := known[other]; ok {
		return other, true, nil
	}
	var d processedDoc
	err := parts.For(other).FindOne(ctx, bson.D{{Key: "_id", Value: other}}).Decode(&d)
	switch {
	case err == nil:
		known[other] = d
		return other, true, nil
	case store.IsNotFound(err):
		return other, false, nil
	default:
		return "", false, err
	}
}
