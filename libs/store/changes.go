package store

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
)

// Changes is the update that turns the stored form of before into after's,
// field by top-level field: $set of each field whose encoding differs or that
// before lacks, $unset of each field after lacks. nil when nothing changed. A
// repository's Update saves a domain value so: only what the domain method
// changed is written, and fields the value's type does not know (another
// version's) are left as stored.
func Changes(before, after any) (bson.M, error) {
	b, err := bson.Marshal(before)
	if err != nil {
		return nil, fmt.Errorf("store: changes: %w", err)
	}
	a, err := bson.Marshal(after)
	if err != nil {
		return nil, fmt.Errorf("store: changes: %w", err)
	}
	old, err := bson.Raw(b).Elements()
	if err != nil {
		return nil, err
	}
	cur, err := bson.Raw(a).Elements()
	if err != nil {
		return nil, err
	}
	was := make(map[string]bson.RawValue, len(old))
	for _, e := range old {
		was[e.Key()] = e.Value()
	}
	set, unset := bson.M{}, bson.M{}
	for _, e := range cur {
		k, v := e.Key(), e.Value()
		if w, ok := was[k]; !ok || w.Type != v.Type || !bytes.Equal(w.Value, v.Value) {
			set[k] = v
		}
		delete(was, k)
	}
	for k := range was {
		unset[k] = ""
	}
	update := bson.M{}
	if len(set) > 0 {
		update["$set"] = set
	}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	if len(update) == 0 {
		return nil, nil
	}
	return update, nil
}
