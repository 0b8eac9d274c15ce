package bsonkit

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// tdHasCodeWithScope tells whether v holds a JavaScript with scope (a type
// appendRaw leaves to the driver).
func tdHasCodeWithScope(v interface{}) bool {
	switch x := v.(type) {
	case primitive.CodeWithScope:
		return true
	case bson.D:
		for _, e := range x {
			if tdHasCodeWithScope(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if tdHasCodeWithScope(e) {
				return true
			}
		}
	}
	return false
}

// appendRaw writes the bytes bson.Marshal writes, for every document that
// Transform gives (the random documents of the Transform test) and for the
// values the engine's operators may leave in one; it leaves the rest to the
// driver.
func TestAppendRawMatchesMarshal(t *testing.T) {
	check := func(d bson.D, wantOK bool) {
		t.Helper()
		want, werr := bson.Marshal(&d)
		got, ok := appendRaw(nil, d)
		if ok != wantOK {
			t.Fatalf("appendRaw answered %v, want %v: %#v", ok, wantOK, d)
		}
		if !ok {
			return
		}
		if werr != nil {
			t.Fatalf("appendRaw wrote what bson.Marshal refuses (%v): %#v", werr, d)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("appendRaw\n%x\nbson.Marshal\n%x\nof %#v", got, want, d)
		}
		prefix := []byte{1, 2, 3}
		if m, err := MarshalAppend(prefix[:1], &d); err != nil || !bytes.Equal(m, append([]byte{1}, want...)) {
			t.Fatalf("MarshalAppend %x (%v), want 01%x", m, err, want)
		}
	}
	for seed := int64(0); seed < 10; seed++ {
		g := &tdGen{rng: rand.New(rand.NewSource(seed))}
		for i := 0; i < 500; i++ {
			doc, err := Transform(g.doc())
			if err != nil {
				continue
			}
			check(*doc, !tdHasCodeWithScope(*doc))
		}
	}
	now := time.Now()
	for _, v := range []interface{}{
		0, -1, math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt64,
		now, time.Time{}, time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		primitive.Null{}, bson.D(nil), bson.A(nil), bson.D{}, bson.A{}, bson.A{nil, bson.D{}, bson.A{}},
		math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000bad),
		primitive.Binary{Subtype: 2}, primitive.Binary{Subtype: 2, Data: []byte{1}}, primitive.Binary{Subtype: 0x80},
		primitive.Regex{Pattern: "a", Options: "imsx"}, "nul\x00inside", "\xff",
		bson.A{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
	} {
		check(bson.D{{Key: "v", Value: v}, {Key: "", Value: v}}, true)
	}
	for _, v := range []interface{}{
		primitive.Regex{Pattern: "a", Options: "mi"}, primitive.Regex{Pattern: "a\x00"}, uint(1), int8(1), float32(1),
		bson.M{"a": 1}, []string{"a"}, primitive.CodeWithScope{Code: "f()"}, &bson.D{},
	} {
		check(bson.D{{Key: "v", Value: v}}, false)
	}
	check(bson.D{{Key: "a\x00b", Value: 1}}, false)

	// what appendRaw leaves to the driver: the driver's bytes and errors
	for _, d := range []*bson.D{{{Key: "v", Value: uint(3)}}, {{Key: "a\x00", Value: 1}}, {}, nil} {
		want, werr := bson.MarshalAppend([]byte{1}, d)
		got, gerr := MarshalAppend([]byte{1}, d)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("MarshalAppend %x (%v), bson.MarshalAppend %x (%v)", got, gerr, want, werr)
		}
	}
}

// Decode gives what the round trip gives, through appendRaw and through the
// driver.
func TestDecodeMatchesTransfer(t *testing.T) {
	doc, err := Transform(newBenchReview())
	if err != nil {
		t.Fatal(err)
	}
	var got, want benchReview
	if err := Decode(doc, &got); err != nil {
		t.Fatal(err)
	}
	if err := Transfer(doc, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || got.ID == "" {
		t.Fatalf("Decode %#v, Transfer %#v", got, want)
	}

	// a value appendRaw leaves to the driver, and a type mismatch
	other := &bson.D{{Key: "_id", Value: "x"}, {Key: "v", Value: uint(7)}}
	var m1, m2 bson.M
	if err := Decode(other, &m1); err != nil {
		t.Fatal(err)
	}
	if err := Transfer(other, &m2); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m1, m2) || m1["v"] != int64(7) {
		t.Fatalf("Decode %#v, Transfer %#v", m1, m2)
	}
	var bad struct {
		ID int `bson:"_id"`
	}
	if err := Decode(other, &bad); err == nil {
		t.Fatal("a string decoded into an int")
	}
}
