package liveset

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

// On the embedded engine a transaction's write set is read from the
// engine's record of what it changed (recordChanges); on MongoDB each write
// reads its documents' keys before and after it. The same random writes,
// each in a transaction of its own (or two in one), go to two databases
// holding the same documents, one on each path. The write set from the
// changes must be exactly the key values of the documents that changed (an
// oracle: the collection read whole before and after, compared by _id); the
// per-write path's must hold them (it may say more: a FindOneAnd* without a
// sort reads every match; or "unknown").
func TestWriteSetsFromChangesMatchPerWriteReads(t *testing.T) {
	ctx := context.Background()
	dbs := [2]*testDB{}
	pubs := [2]*published{}
	for i := range dbs {
		dbs[i], pubs[i] = liveDB(t)
	}
	dbs[1].tr.fromChanges = false // the MongoDB path, on the embedded engine
	if !dbs[0].tr.fromChanges {
		t.Fatal("the embedded engine must read write sets from its changes")
	}

	rng := rand.New(rand.NewSource(7))
	key := func() any {
		switch rng.Intn(9) {
		case 0:
			return nil
		case 1:
			return bson.A{"A", "B"}
		case 2:
			return int32(1)
		case 3:
			return 1.0
		case 4:
			return primitive.DateTime(1700000000000)
		default:
			return string(rune('A' + rng.Intn(4)))
		}
	}
	doc := func(id int) bson.D {
		d := bson.D{{Key: "_id", Value: id}}
		if rng.Intn(6) > 0 {
			d = append(d, bson.E{Key: "storeId", Value: key()})
		}
		if rng.Intn(6) > 0 {
			d = append(d, bson.E{Key: "customerId", Value: key()})
		}
		return append(d, bson.E{Key: "rating", Value: rng.Intn(5)})
	}
	filter := func() bson.M {
		switch rng.Intn(4) {
		case 0:
			return bson.M{"_id": rng.Intn(40)}
		case 1:
			return bson.M{"storeId": key()}
		case 2:
			return bson.M{"rating": bson.M{"$gte": rng.Intn(5)}}
		}
		return bson.M{"customerId": key(), "rating": rng.Intn(5)}
	}
	update := func() bson.M {
		switch rng.Intn(4) {
		case 0:
			return bson.M{"$set": bson.M{"storeId": key()}}
		case 1:
			return bson.M{"$unset": bson.M{"customerId": ""}}
		}
		return bson.M{"$inc": bson.M{"rating": 1}}
	}
	compared, unknown := 0, 0
	for step := 0; step < 1500; step++ {
		op := rng.Intn(11)
		id := rng.Intn(40)
		d, f, u, f2 := doc(id), filter(), update(), filter()
		replacement, d2 := doc(id)[1:], doc(id+40)
		upsert := rng.Intn(3) == 0
		if upsert {
			f = bson.M{"_id": id} // an upsert's _id from its filter: the two databases stay alike
		}
		before := rawDocs(t, dbs[0])
		n := [2]int{pubs[0].count(), pubs[1].count()}
		for _, db := range dbs {
			c := db.Collection("reviews")
			var err error
			switch op {
			case 0:
				_, err = c.InsertOne(ctx, d)
			case 1:
				_, err = c.InsertMany(ctx, []any{d, d2}, options.InsertMany().SetOrdered(false))
			case 2:
				_, err = c.UpdateOne(ctx, f, u, options.Update().SetUpsert(upsert))
			case 3:
				_, err = c.UpdateMany(ctx, f, u)
			case 4:
				_, err = c.ReplaceOne(ctx, bson.M{"_id": id}, replacement, options.Replace().SetUpsert(upsert))
			case 5:
				_, err = c.DeleteOne(ctx, f)
			case 6:
				_, err = c.DeleteMany(ctx, f)
			case 7:
				err = c.FindOneAndUpdate(ctx, f, u, options.FindOneAndUpdate().SetUpsert(upsert).SetSort(bson.M{"_id": 1})).Err()
			case 8:
				err = c.FindOneAndDelete(ctx, f).Err()
			case 9:
				err = c.FindOneAndReplace(ctx, bson.M{"_id": id}, replacement).Err()
			case 10:
				// two writes in one transaction
				err = db.Tx(ctx, func(ctx context.Context) error {
					if _, err := c.UpdateMany(ctx, f, u); err != nil {
						return err
					}
					_, err := c.DeleteOne(ctx, f2)
					return err
				})
			}
			if err != nil && !store.IsDuplicate(err) && !store.IsNotFound(err) && !mongo.IsDuplicateKeyError(err) {
				t.Fatalf("step %d op %d: %v", step, op, err)
			}
		}
		want := changedKeys(before, rawDocs(t, dbs[0]), dbs[0].KeyFields("reviews"))
		got := [2]int{pubs[0].count() - n[0], pubs[1].count() - n[1]}
		// (a FindOneAnd* on the per-write path records the document it
		// matched, changed or not: its result does not say)
		findAnd := op >= 7 && op <= 9
		if want == nil {
			if got[0] != 0 || (got[1] != 0 && !findAnd) {
				t.Fatalf("step %d op %d: nothing changed, yet %d and %d write sets were published", step, op, got[0], got[1])
			}
			continue
		}
		if got[0] != 1 || got[1] != 1 {
			t.Fatalf("step %d op %d: %d write sets published from changes, %d from per-write reads, want one each", step, op, got[0], got[1])
		}
		fromChanges, perWrite := pubs[0].last(t).Colls["reviews"], pubs[1].last(t).Colls["reviews"]
		if fromChanges == nil || fromChanges.All || fmt.Sprint(sortedValues(fromChanges)) != fmt.Sprint(want) {
			t.Fatalf("step %d op %d: from changes %+v, want %v", step, op, fromChanges, want)
		}
		compared++
		if perWrite.All {
			unknown++
			continue
		}
		for f, vs := range want {
			for _, v := range vs {
				if !slices.Contains(perWrite.Values[f], v) {
					t.Fatalf("step %d op %d: the per-write reads miss %s=%s: %v", step, op, f, v, perWrite.Values)
				}
			}
		}
	}
	// the documents agree too
	var docs [2][]bson.M
	for i, db := range dbs {
		cur, err := db.Collection("reviews").Find(ctx, bson.M{}, options.Find().SetSort(bson.M{"_id": 1}))
		if err != nil {
			t.Fatal(err)
		}
		if err := cur.All(ctx, &docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(docs[0]) != fmt.Sprint(docs[1]) || len(docs[0]) == 0 {
		t.Fatalf("the two databases hold other documents:\n%v\n%v", docs[0], docs[1])
	}
	if compared < 500 {
		t.Fatalf("only %d write sets compared (%d unknown on the per-write path)", compared, unknown)
	}
}

// rawDocs is the reviews collection by _id.
func rawDocs(t *testing.T, db *testDB) map[string]bson.Raw {
	t.Helper()
	cur, err := db.Collection("reviews").Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bson.Raw{}
	for cur.Next(context.Background()) {
		var raw bson.Raw
		if err := cur.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		out[raw.Lookup("_id").String()] = slices.Clone(raw)
	}
	return out
}

// changedKeys are the key values of the documents that differ between two
// states (old versions and new ones), sorted per field; nil if none differ.
func changedKeys(before, after map[string]bson.Raw, fields []string) map[string][]string {
	var changed []bson.Raw
	for id, b := range before {
		if a, ok := after[id]; !ok || !bytes.Equal(a, b) {
			changed = append(changed, b)
		}
	}
	for id, a := range after {
		if b, ok := before[id]; !ok || !bytes.Equal(a, b) {
			changed = append(changed, a)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, doc := range changed {
		for _, f := range fields {
			vals, ok := keyValues(doc, f)
			if !ok {
				panic("a key value the test's documents cannot have")
			}
			for _, v := range vals {
				if !slices.Contains(out[f], v) {
					out[f] = append(out[f], v)
				}
			}
		}
	}
	for _, vs := range out {
		slices.Sort(vs)
	}
	return out
}

// sortedValues are a collection's write values, sorted per field.
func sortedValues(cw *CollWrite) map[string][]string {
	out := map[string][]string{}
	for f, vs := range cw.Values {
		out[f] = slices.Sorted(slices.Values(vs))
	}
	return out
}
