package boltstore

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// idKey writes string and object ids itself: the same key as the _id's type
// byte and bson.MarshalValue's bytes, which every other type still uses.
func TestIDKeyMatchesMarshalValue(t *testing.T) {
	for _, id := range []any{"", "rev_01", "héllo ✓", "nul\x00inside", "\xff", primitive.NewObjectID(), primitive.ObjectID{},
		int32(7), int64(1) << 40, 2.5, bson.D{{Key: "a", Value: int32(1)}}} {
		got, err := idKey(&bson.D{{Key: "x", Value: 1}, {Key: "_id", Value: id}})
		if err != nil {
			t.Fatal(err)
		}
		typ, data, err := bson.MarshalValue(id)
		if err != nil {
			t.Fatal(err)
		}
		if want := append([]byte{byte(typ)}, data...); !bytes.Equal(got, want) {
			t.Fatalf("idKey(%#v) = %x, want %x", id, got, want)
		}
	}
	if _, err := idKey(&bson.D{{Key: "x", Value: 1}}); err == nil {
		t.Fatal("a document without _id has a key")
	}
}
