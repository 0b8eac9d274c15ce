package store

import (
	"math/rand"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// decodeDoc gives what bson.Unmarshal into a bson.D gives, for every BSON
// type, and fails where it fails (truncated or corrupted documents).
func TestDecodeDocMatchesUnmarshal(t *testing.T) {
	dec, _ := primitive.ParseDecimal128("12.50")
	doc := bson.D{
		{Key: "_id", Value: primitive.NewObjectID()}, {Key: "f", Value: 1.5}, {Key: "s", Value: "héllo"}, {Key: "empty", Value: ""},
		{Key: "doc", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.D{{Key: "c", Value: bson.A{}}}}}},
		{Key: "arr", Value: bson.A{int32(1), "x", bson.D{{Key: "y", Value: nil}}, bson.A{int64(2)}}},
		{Key: "bin", Value: primitive.Binary{Subtype: 0, Data: []byte{1, 2}}}, {Key: "uuid", Value: primitive.Binary{Subtype: 4, Data: make([]byte, 16)}},
		{Key: "undef", Value: primitive.Undefined{}}, {Key: "t", Value: true}, {Key: "f2", Value: false},
		{Key: "dt", Value: primitive.NewDateTimeFromTime(time.Now())}, {Key: "null", Value: nil},
		{Key: "re", Value: primitive.Regex{Pattern: "^a", Options: "i"}}, {Key: "ptr", Value: primitive.DBPointer{DB: "x.y", Pointer: primitive.NewObjectID()}},
		{Key: "js", Value: primitive.JavaScript("f()")}, {Key: "sym", Value: primitive.Symbol("s")},
		{Key: "cws", Value: primitive.CodeWithScope{Code: "g()", Scope: bson.D{{Key: "z", Value: int32(3)}}}},
		{Key: "i32", Value: int32(-7)}, {Key: "ts", Value: primitive.Timestamp{T: 5, I: 6}}, {Key: "i64", Value: int64(1) << 40},
		{Key: "dec", Value: dec}, {Key: "min", Value: primitive.MinKey{}}, {Key: "max", Value: primitive.MaxKey{}},
		{Key: "emptydoc", Value: bson.D{}},
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var want bson.D
	if err := bson.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeDoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeDoc:\n%#v\nbson.Unmarshal:\n%#v", got, want)
	}
	// Damaged copies: every truncation, and random byte changes, fail in
	// decodeDoc when they fail in bson.Unmarshal (decodeDoc may be stricter,
	// never laxer); when both decode, they agree.
	rng := rand.New(rand.NewSource(1))
	try := func(b []byte) {
		t.Helper()
		var w bson.D
		werr := bson.Unmarshal(append([]byte(nil), b...), &w)
		g, gerr := decodeDoc(b)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("decodeDoc accepted what bson.Unmarshal rejects (%v): %x", werr, b)
		case werr == nil && gerr == nil && !reflect.DeepEqual(g, w):
			t.Fatalf("decodeDoc and bson.Unmarshal differ on %x", b)
		}
	}
	for n := 0; n < len(raw); n++ {
		try(raw[:n])
	}
	for i := 0; i < 5000; i++ {
		b := append([]byte(nil), raw...)
		for k := 0; k < 1+rng.Intn(3); k++ {
			b[rng.Intn(len(b))] = byte(rng.Intn(256))
		}
		try(b)
	}
}
