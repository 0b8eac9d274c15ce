package bsonkit

// RawDecoder decodes a document's BSON into the same values bson.Unmarshal
// gives into a bson.D (embedded documents bson.D, arrays bson.A, each BSON
// type its primitive type), without the reflection of the driver's codecs:
// opening a database file decodes every document it holds (the project's
// file store), and Transform decodes every document given as a struct; the
// codecs made most of that time. Malformed BSON is an error, as it is for
// bson.Unmarshal (TestRawDecoderMatchesUnmarshal checks both).

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

var errMalformed = errors.New("malformed BSON")

// rawDecoders serve DecodeRaw: each shares the keys of the documents it
// decodes (documents given as one struct type have the same keys), until the
// collector empties the pool.
var rawDecoders = sync.Pool{New: func() any { return NewRawDecoder() }}

// DecodeRaw decodes raw, which must be exactly one document. The values keep
// no reference to raw; keys may be strings shared with documents decoded
// before.
func DecodeRaw(raw []byte) (bson.D, error) {
	dc := rawDecoders.Get().(*RawDecoder)
	defer rawDecoders.Put(dc)
	return dc.Decode(raw)
}

// A RawDecoder keeps, between documents, a scratch list of elements per depth
// (each document and array is then allocated once at its final length) and,
// made by NewRawDecoder, the keys seen (documents of a collection share their
// keys; one string each). It is not safe for concurrent use. The zero value
// decodes without sharing keys.
type RawDecoder struct {
	elems [][]bson.E
	vals  [][]any
	keys  keyTable
}

// NewRawDecoder returns a decoder that gives equal keys of the documents it
// decodes one string (up to 4,096 distinct keys).
func NewRawDecoder() *RawDecoder {
	return &RawDecoder{keys: keyTable{}}
}

// Decode decodes raw, which must be exactly one document. The values keep no
// reference to raw.
func (dc *RawDecoder) Decode(raw []byte) (bson.D, error) {
	d, rest, err := dc.decodeDocument(raw, 0)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the document", errMalformed, len(rest))
	}
	return d, nil
}

const maxDepth = 200

// elements returns the elements' bytes of the document at the start of raw
// and what follows it.
func elements(raw []byte) (elems, rest []byte, err error) {
	length, _, ok := bsoncore.ReadLength(raw)
	if !ok || length < 5 || int(length) > len(raw) || raw[length-1] != 0 {
		return nil, nil, errMalformed
	}
	return raw[4 : length-1], raw[length:], nil
}

func (dc *RawDecoder) decodeDocument(raw []byte, depth int) (bson.D, []byte, error) {
	if depth > maxDepth {
		return nil, nil, fmt.Errorf("%w: nested too deep", errMalformed)
	}
	elems, rest, err := elements(raw)
	if err != nil {
		return nil, nil, err
	}
	for len(dc.elems) <= depth {
		dc.elems = append(dc.elems, nil)
	}
	scratch := dc.elems[depth][:0]
	for len(elems) > 0 {
		t := bsontype.Type(elems[0])
		kb, r, ok := readCString(elems[1:])
		if !ok {
			return nil, nil, errMalformed
		}
		key := dc.key(kb)
		v, r, err := dc.decodeValue(t, r, depth)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", key, err)
		}
		scratch = append(scratch, bson.E{Key: key, Value: v})
		elems = r
	}
	dc.elems[depth] = scratch[:0]
	d := make(bson.D, len(scratch))
	copy(d, scratch)
	clear(scratch)
	return d, rest, nil
}

func (dc *RawDecoder) decodeArray(raw []byte, depth int) (bson.A, []byte, error) {
	if depth > maxDepth {
		return nil, nil, fmt.Errorf("%w: nested too deep", errMalformed)
	}
	elems, rest, err := elements(raw)
	if err != nil {
		return nil, nil, err
	}
	for len(dc.vals) <= depth {
		dc.vals = append(dc.vals, nil)
	}
	scratch := dc.vals[depth][:0]
	for len(elems) > 0 {
		t := bsontype.Type(elems[0])
		_, r, ok := readCString(elems[1:])
		if !ok {
			return nil, nil, errMalformed
		}
		v, r, err := dc.decodeValue(t, r, depth)
		if err != nil {
			return nil, nil, err
		}
		scratch = append(scratch, v)
		elems = r
	}
	dc.vals[depth] = scratch[:0]
	a := make(bson.A, len(scratch))
	copy(a, scratch)
	clear(scratch)
	return a, rest, nil
}

func (dc *RawDecoder) decodeValue(t bsontype.Type, r []byte, depth int) (any, []byte, error) {
	var ok bool
	switch t {
	case bsontype.Double:
		var f float64
		f, r, ok = bsoncore.ReadDouble(r)
		return f, r, okOr(ok)
	case bsontype.String:
		var s string
		s, r, ok = readString(r)
		return s, r, okOr(ok)
	case bsontype.EmbeddedDocument:
		return dc.decodeDocument(r, depth+1)
	case bsontype.Array:
		return dc.decodeArray(r, depth+1)
	case bsontype.Binary:
		var sub byte
		var data []byte
		sub, data, r, ok = readBinary(r)
		if !ok {
			return nil, nil, errMalformed
		}
		// a copy, never nil (as the driver's)
		return primitive.Binary{Subtype: sub, Data: append(make([]byte, 0, len(data)), data...)}, r, nil
	case bsontype.Undefined:
		return primitive.Undefined{}, r, nil
	case bsontype.ObjectID:
		var id primitive.ObjectID
		id, r, ok = bsoncore.ReadObjectID(r)
		return id, r, okOr(ok)
	case bsontype.Boolean:
		if len(r) < 1 || r[0] > 1 {
			return nil, nil, errMalformed
		}
		return r[0] == 1, r[1:], nil
	case bsontype.DateTime:
		var dt int64
		dt, r, ok = bsoncore.ReadDateTime(r)
		return primitive.DateTime(dt), r, okOr(ok)
	case bsontype.Null:
		return nil, r, nil
	case bsontype.Regex:
		var p, o string
		p, o, r, ok = bsoncore.ReadRegex(r)
		return primitive.Regex{Pattern: p, Options: o}, r, okOr(ok)
	case bsontype.DBPointer:
		var ns string
		var id primitive.ObjectID
		if ns, r, ok = readString(r); ok {
			id, r, ok = bsoncore.ReadObjectID(r)
		}
		return primitive.DBPointer{DB: ns, Pointer: id}, r, okOr(ok)
	case bsontype.JavaScript:
		var s string
		s, r, ok = readString(r)
		return primitive.JavaScript(s), r, okOr(ok)
	case bsontype.Symbol:
		var s string
		s, r, ok = readString(r)
		return primitive.Symbol(s), r, okOr(ok)
	case bsontype.Int32:
		var i int32
		i, r, ok = bsoncore.ReadInt32(r)
		return i, r, okOr(ok)
	case bsontype.Timestamp:
		var ts, inc uint32
		ts, inc, r, ok = bsoncore.ReadTimestamp(r)
		return primitive.Timestamp{T: ts, I: inc}, r, okOr(ok)
	case bsontype.Int64:
		var i int64
		i, r, ok = bsoncore.ReadInt64(r)
		return i, r, okOr(ok)
	case bsontype.Decimal128:
		var d primitive.Decimal128
		d, r, ok = bsoncore.ReadDecimal128(r)
		return d, r, okOr(ok)
	case bsontype.MinKey:
		return primitive.MinKey{}, r, nil
	case bsontype.MaxKey:
		return primitive.MaxKey{}, r, nil
	default:
		// JavaScript with scope and anything unknown: the driver's codecs
		// (rare; kept exact rather than fast).
		v, r, ok := bsoncore.ReadValue(r, t)
		if !ok {
			return nil, nil, errMalformed
		}
		var out bson.D
		if err := bson.Unmarshal(bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, "v", v)), &out); err != nil {
			return nil, nil, err
		}
		return out[0].Value, r, nil
	}
}

// key is the string of a key's bytes, one string per distinct key when the
// decoder shares keys.
func (dc *RawDecoder) key(b []byte) string {
	if dc.keys == nil {
		return string(b)
	}
	return dc.keys.ofBytes(b)
}

// A keyTable gives equal keys one string of its own (up to 4,096 distinct
// keys; then new keys are copies of their own).
type keyTable map[string]string

func (kt keyTable) ofBytes(b []byte) string {
	if k, ok := kt[string(b)]; ok {
		return k
	}
	k := string(b)
	if len(kt) < 4096 {
		kt[k] = k
	}
	return k
}

// of gives the table's copy of s.
func (kt keyTable) of(s string) string {
	if k, ok := kt[s]; ok {
		return k
	}
	k := strings.Clone(s)
	if len(kt) < 4096 {
		kt[k] = k
	}
	return k
}

// readCString reads a key: the bytes up to a null byte.
func readCString(r []byte) ([]byte, []byte, bool) {
	i := bytes.IndexByte(r, 0)
	if i < 0 {
		return nil, nil, false
	}
	return r[:i], r[i+1:], true
}

// readBinary reads a binary's subtype and data as the driver's value reader
// does: the old binary subtype (2) has a second length after the subtype when
// the first is above 4 (bsoncore.ReadBinary always reads one).
func readBinary(r []byte) (byte, []byte, []byte, bool) {
	length, rest, ok := bsoncore.ReadLength(r)
	if !ok || len(rest) < 1 {
		return 0, nil, nil, false
	}
	sub, rest := rest[0], rest[1:]
	if sub == 0x02 && length > 4 {
		if length, rest, ok = bsoncore.ReadLength(rest); !ok {
			return 0, nil, nil, false
		}
	}
	if length < 0 || int(length) > len(rest) {
		return 0, nil, nil, false
	}
	return sub, rest[:length], rest[length:], true
}

// readString reads a BSON string, checking its length and terminator.
func readString(r []byte) (string, []byte, bool) {
	length, rest, ok := bsoncore.ReadLength(r)
	if !ok || length < 1 || int(length) > len(rest) || rest[length-1] != 0 {
		return "", nil, false
	}
	return string(rest[:length-1]), rest[length:], true
}

func okOr(ok bool) error {
	if !ok {
		return errMalformed
	}
	return nil
}
