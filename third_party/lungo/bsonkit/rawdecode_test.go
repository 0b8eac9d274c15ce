package bsonkit

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// DecodeRaw gives what bson.Unmarshal into a bson.D gives, for every BSON
// type, and fails where it fails (truncated or corrupted documents).
func TestRawDecoderMatchesUnmarshal(t *testing.T) {
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
		{Key: "emptybin", Value: primitive.Binary{Subtype: 0, Data: []byte{}}}, {Key: "nilbin", Value: primitive.Binary{Subtype: 5}},
		{Key: "old", Value: primitive.Binary{Subtype: 2, Data: []byte{7, 8, 9}}}, {Key: "oldempty", Value: primitive.Binary{Subtype: 2}},
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var want bson.D
	if err := bson.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeRaw:\n%#v\nbson.Unmarshal:\n%#v", got, want)
	}
	// Damaged copies: every truncation, and random byte changes, fail in
	// DecodeRaw when they fail in bson.Unmarshal (DecodeRaw may be stricter,
	// never laxer); when both decode, they agree.
	rng := rand.New(rand.NewSource(1))
	try := func(b []byte) {
		t.Helper()
		var w bson.D
		werr := bson.Unmarshal(append([]byte(nil), b...), &w)
		g, gerr := DecodeRaw(b)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("DecodeRaw accepted what bson.Unmarshal rejects (%v): %x", werr, b)
		case werr == nil && gerr == nil && !reflect.DeepEqual(g, w):
			t.Fatalf("DecodeRaw and bson.Unmarshal differ on %x", b)
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

// A decoder that shares keys decodes each document as DecodeRaw does, and
// gives equal keys one string.
func TestRawDecoderSharesKeys(t *testing.T) {
	dc := NewRawDecoder()
	var first bson.D
	for i := 0; i < 3; i++ {
		raw, err := bson.Marshal(bson.D{{Key: "name", Value: fmt.Sprint("n", i)}, {Key: "sub", Value: bson.D{{Key: "name", Value: int32(i)}}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := dc.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		want, err := DecodeRaw(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("shared keys %#v, DecodeRaw %#v", got, want)
		}
		if i == 0 {
			first = got
			continue
		}
		if unsafe.StringData(got[0].Key) != unsafe.StringData(first[0].Key) || unsafe.StringData(got[1].Value.(bson.D)[0].Key) != unsafe.StringData(first[0].Key) {
			t.Fatal("a key decoded again is a new string")
		}
	}
}
