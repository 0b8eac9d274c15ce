package bsonkit

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// FuzzRawPaths: for any bytes that bson.Unmarshal decodes into a bson.D,
// DecodeRaw gives the same document (or refuses: it may be stricter), the
// direct conversion of that document gives what the round trip gives, and
// appendRaw writes what bson.Marshal writes.
func FuzzRawPaths(f *testing.F) {
	for _, d := range []interface{}{
		bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.A{"x", nil, 2.5}}},
		bson.D{{Key: "t", Value: time.Unix(1, 2)}, {Key: "o", Value: primitive.NewObjectID()}, {Key: "bin", Value: primitive.Binary{Subtype: 2, Data: []byte{1}}}},
		bson.D{{Key: "r", Value: primitive.Regex{Pattern: "p", Options: "mi"}}, {Key: "d", Value: bson.D{{Key: "x", Value: int64(5)}}}},
		newBenchReview(),
	} {
		raw, err := bson.Marshal(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want bson.D
		if err := bson.Unmarshal(append([]byte(nil), raw...), &want); err != nil {
			return
		}
		if got, err := DecodeRaw(raw); err == nil && !tdSame(got, want) {
			t.Fatalf("DecodeRaw %#v, bson.Unmarshal %#v", got, want)
		}
		if direct, ok := transformDoc(want); ok {
			var rt bson.D
			if err := Transfer(want, &rt); err != nil {
				t.Fatalf("converted directly what the round trip refuses (%v): %#v", err, want)
			}
			if !tdSame(*direct, rt) {
				t.Fatalf("direct %#v, round trip %#v", *direct, rt)
			}
		}
		if enc, ok := appendRaw(nil, want); ok {
			m, err := bson.Marshal(want)
			if err != nil || !bytes.Equal(enc, m) {
				t.Fatalf("appendRaw %x, bson.Marshal %x (%v)", enc, m, err)
			}
		}
	})
}
