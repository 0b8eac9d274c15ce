package bsonkit

import (
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
)

var marshalBuffers = sync.Pool{New: func() any { return new([]byte) }}

// Transform will transform an arbitrary value into a document composed of known
// primitives.
//
// A bson.M, bson.D, map[string]interface{} or a pointer to a bson.D made of
// the common values (see transformValue) is converted directly; any other
// value is marshalled and its bytes decoded by DecodeRaw (which gives what
// bson.Unmarshal into a bson.D gives). Both give the same Go values as the
// round trip through bson.Marshal and bson.Unmarshal, except for the key
// order of a map: the round trip gives the map's iteration order (random),
// the direct conversion the keys sorted.
func Transform(v interface{}) (Doc, error) {
	// convert directly
	if doc, ok := transformDoc(v); ok {
		return doc, nil
	}

	// marshal (into a pooled buffer: the decoded values keep no reference)
	buf := marshalBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= 1<<20 {
			marshalBuffers.Put(buf)
		}
	}()
	bytes, err := bson.MarshalAppend((*buf)[:0], v)
	if err != nil {
		return nil, err
	}
	*buf = bytes

	// decode
	doc, err := DecodeRaw(bytes)
	if err != nil {
		// a custom marshaler's bytes that DecodeRaw, stricter, refuses:
		// the driver's answer
		doc = nil
		if err := bson.Unmarshal(bytes, &doc); err != nil {
			return nil, err
		}
	}

	return &doc, nil
}

// TransformList will transform an arbitrary value info a list of documents
// composed of known primitives.
func TransformList(v interface{}) (List, error) {
	// transform value
	doc, err := Transform(bson.M{"v": v})
	if err != nil {
		return nil, err
	}

	// get array
	array, ok := (*doc)[0].Value.(bson.A)
	if !ok {
		return nil, fmt.Errorf("expected array")
	}

	// build list
	list := make(List, 0, len(array))
	for _, item := range array {
		doc, ok := item.(bson.D)
		if !ok {
			return nil, fmt.Errorf("expected array of documents")
		}
		list = append(list, &doc)
	}

	return list, nil
}

// Transfer will transfer data from one type to another by marshalling the data
// and unmarshalling it again. This method is not very fast, but it ensures
// compatibility with custom types that implement the bson.Marshaller interface.
func Transfer(in, out interface{}) error {
	// marshal to bytes
	bytes, err := bson.Marshal(in)
	if err != nil {
		return err
	}

	// unmarshal bytes
	err = bson.Unmarshal(bytes, out)
	if err != nil {
		return err
	}

	return nil
}
