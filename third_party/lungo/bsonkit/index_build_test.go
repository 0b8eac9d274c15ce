package bsonkit

import (
	"math/rand"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// entries lists the index's btree entries in order.
func (i *Index) entries() []indexEntry {
	var out []indexEntry
	i.btree.Scan(func(e indexEntry) bool {
		out = append(out, e)
		return true
	})
	return out
}

// Building an empty index in bulk gives the same entries and the same answer
// (a unique collision, a sequence number given twice) as adding the
// documents one by one: random documents with missing fields, mixed number types, arrays
// with repeated and empty values, on unique and plain, single and compound,
// reversed indexes.
func TestIndexBuildMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	value := func() interface{} {
		switch rng.Intn(7) {
		case 0:
			return int32(rng.Intn(20))
		case 1:
			return float64(rng.Intn(20))
		case 2:
			return int64(rng.Intn(20))
		case 3:
			return "s" + string(rune('a'+rng.Intn(5)))
		case 4:
			return nil
		case 5:
			a := bson.A{}
			for k := rng.Intn(4); k > 0; k-- {
				a = append(a, int32(rng.Intn(5)))
			}
			return a
		default:
			return Missing
		}
	}
	layouts := [][]Column{
		{{Path: "a"}},
		{{Path: "a", Reverse: true}},
		{{Path: "a"}, {Path: "b", Reverse: true}},
	}
	collisions, accepted := 0, 0
	for round := 0; round < 600; round++ {
		n := 2 + rng.Intn(60)
		var list List
		var seqs []uint64
		for k := 0; k < n; k++ {
			d := bson.D{{Key: "_id", Value: k}}
			for _, f := range []string{"a", "b"} {
				if v := value(); v != Missing {
					d = append(d, bson.E{Key: f, Value: v})
				}
			}
			list = append(list, &d)
			seqs = append(seqs, uint64(k+1))
		}
		if rng.Intn(10) == 0 {
			j := rng.Intn(len(list))
			list = append(list, list[j]) // listed twice
			seqs = append(seqs, seqs[j])
		}
		for _, unique := range []bool{false, true} {
			for _, cols := range layouts {
				bulk, one := NewIndex(unique, cols), NewIndex(unique, cols)
				okBulk := bulk.Build(list, seqs)
				okOne := true
				for j, d := range list {
					if !one.Add(d, seqs[j]) {
						okOne = false
						break
					}
				}
				if okBulk != okOne {
					t.Fatalf("round %d unique %v %v: bulk build %v, one by one %v", round, unique, cols, okBulk, okOne)
				}
				if okOne {
					accepted++
					if !reflect.DeepEqual(bulk.entries(), one.entries()) {
						t.Fatalf("round %d unique %v %v: entries differ", round, unique, cols)
					}
					// the bulk-built index keeps working as a btree
					for j, d := range list[:len(list)/2] {
						if !bulk.Remove(d, seqs[j]) || !one.Remove(d, seqs[j]) {
							t.Fatalf("round %d: remove failed", round)
						}
					}
					if !reflect.DeepEqual(bulk.entries(), one.entries()) {
						t.Fatalf("round %d unique %v %v: entries differ after removes", round, unique, cols)
					}
				} else {
					collisions++
				}
			}
		}
	}
	if collisions < 100 || accepted < 100 {
		t.Fatalf("cases not covered: %d collisions, %d accepted", collisions, accepted)
	}
}
