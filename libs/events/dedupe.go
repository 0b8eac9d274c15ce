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
//
// An event published in two versions (versions.go) has two copies of one id
// and two digests, each naming the other's digest. A consumer handles one of
// them, but which one changes when it moves to the new version, and the copy
// it now takes may be a redelivery of an event it handled in the old one. So
// a record also keeps the digests of its event's other copies, and a copy is
// a duplicate of a record of another copy when each names the other (a
// forged copy can name a real one, but no real copy names a forged one). Such
// a record may be under group/id or, when another event took that id first,
// under group/id/<digest of that copy>: both are looked for.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"maps"
	"slices"
	"strconv"
)

// contentDigest is the hex SHA-256 of an event's type, source, subject, data
// (with insignificant whitespace removed) and, when it is not 1, the major
// version of its data: version 1 adds nothing, so an event's digest is the
// same with and without a dataschema, and the same as consumers that predate
// versions compute. The id and time are left out (two events of the same
// content are the same event to a handler), and so are its copies.
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
	if v, err := env.Version(); err == nil && v != 1 {
		field(h, []byte("v"+strconv.Itoa(v)))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// processedKey is the key of an event's first record: group/id.
func (c *consumer) processedKey(id string) string { return c.cfg.GroupID + "/" + id }

// sameEvent tells whether a processed record stands for the event of topic
// with that digest and those copies: the same content, or another copy of it
// (each names the other).
func (d processedDoc) sameEvent(topic string, env Envelope, digest string, copies []string) bool {
	if d.Digest != "" {
		return d.Digest == digest || slices.Contains(copies, d.Digest) && slices.Contains(d.Copies, digest)
	}
	// Written before digests: the type and topic are all it can be checked by.
	return d.Type == env.Type && d.Topic == topic
}

// dedupeKey is the key under which the event of topic with that digest and
// those copies is (or is to be) recorded, and whether it is recorded
// already. known holds the records read so far by key (the group/id ones of
// the transaction's events, and those recorded by it); the records of other
// events under the same id, of this one and of its copies, are read when
// needed, and added to known.
func (c *consumer) dedupeKey(ctx context.Context, known map[string]processedDoc, topic string, env Envelope, digest string, copies []string) (string, bool, error) {
	key := c.processedKey(env.ID)
	first, ok := known[key]
	if !ok {
		return key, false, nil
	}
	if first.sameEvent(topic, env, digest, copies) {
		return key, true, nil
	}
	other := key + "/" + digest
	c.logger.WarnContext(ctx, "events: two different events share an id: not taken as a duplicate",
		"id", env.ID, "topic", topic, "type", env.Type, "subject", env.Subject, "digest", digest,
		"recordedTopic", first.Topic, "recordedType", first.Type, "recordedDigest", first.Digest)
	candidates := []string{other}
	for _, d := range copies {
		candidates = append(candidates, key+"/"+d)
	}
	var missing []string
	for _, k := range candidates {
		if _, ok := known[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		found, err := c.processedAmong(ctx, missing)
		if err != nil {
			return "", false, err
		}
		maps.Copy(known, found)
	}
	for _, k := range candidates {
		if d, ok := known[k]; ok && d.sameEvent(topic, env, digest, copies) {
			return other, true, nil
		}
	}
	return other, false, nil
}
