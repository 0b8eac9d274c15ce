package bsonkit

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
)

// TestIndexWalk: Walk gives the documents of the entries with the prefix
// and the next key in the range, in the index's order or against it, each
// once, at its first entry in the walk's order: compared with a filter of
// all the entries, over random documents (mixed number types, strings,
// null, missing fields, arrays) on compound indexes in both directions,
// with walks longer than a chunk.
func TestIndexWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	scalar := func() interface{} {
		switch rng.Intn(6) {
		case 0:
			return int32(rng.Intn(10))
		case 1:
			return float64(rng.Intn(10)) / 2
		case 2:
			return int64(rng.Intn(10))
		case 3:
			return string(rune('a' + rng.Intn(6)))
		case 4:
			return nil
		default:
			return Missing
		}
	}
	for round := 0; round < 8; round++ {
		arrays := round%2 == 1
		columns := []Column{{Path: "a", Reverse: round%4 >= 2}, {Path: "b", Reverse: round%3 == 0}, {Path: "c"}}
		index := NewIndex(false, columns)
		var docs List
		var seqs []uint64 // docs[i] is number i+1
		for i := 0; i < 600; i++ {
			doc := bson.D{{Key: "_id", Value: int32(i)}}
			doc = append(doc, bson.E{Key: "a", Value: []interface{}{"x", "y", int32(1)}[rng.Intn(3)]})
			if b := scalar(); b != Missing {
				if arrays && rng.Intn(5) == 0 {
					b = bson.A{b, scalar(), int32(rng.Intn(10))}
				}
				doc = append(doc, bson.E{Key: "b", Value: b})
			}
			doc = append(doc, bson.E{Key: "c", Value: int32(rng.Intn(3))})
			docs = append(docs, &doc)
			seqs = append(seqs, uint64(i+1))
			require.True(t, index.Add(&doc, uint64(i+1)))
		}

		// remove some, and check the multikey count
		for j, doc := range docs[:100] {
			require.True(t, index.Remove(doc, seqs[j]))
		}
		multi := false
		for _, doc := range docs[100:] {
			if _, ok := Get(doc, "b").(bson.A); ok {
				multi = true
			}
		}
		assert.Equal(t, multi, index.Multikey())
		assert.Equal(t, multi, index.Clone().Multikey())
		built := NewIndex(false, columns)
		require.True(t, built.Build(docs[100:], seqs[100:]))
		assert.Equal(t, multi, built.Multikey())

		all := index.entries()
		for q := 0; q < 300; q++ {
			prefix := []interface{}{[]interface{}{"x", "y", 1.0, "z"}[rng.Intn(4)]}
			var r *Range
			if rng.Intn(4) > 0 {
				v := scalar()
				for v == nil || v == Missing {
					v = scalar()
				}
				class, _ := Inspect(v)
				r = &Range{Class: class}
				if rng.Intn(3) > 0 {
					r.Low = &Bound{Value: v, Inclusive: rng.Intn(2) == 0}
				}
				if rng.Intn(3) > 0 {
					w := scalar()
					if c, _ := Inspect(w); c == class {
						r.High = &Bound{Value: w, Inclusive: rng.Intn(2) == 0}
					}
				}
			}
			backward := rng.Intn(2) == 0

			// the reference: every entry, filtered
			in := func(e indexEntry) bool {
				if Compare(e.keys[0], prefix[0]) != 0 {
					return false
				}
				if r == nil {
					return true
				}
				k := e.keys[1]
				if c, _ := Inspect(k); c != r.Class {
					return false
				}
				if r.Low != nil {
					if res := Compare(k, r.Low.Value); res < 0 || res == 0 && !r.Low.Inclusive {
						return false
					}
				}
				if r.High != nil {
					if res := Compare(k, r.High.Value); res > 0 || res == 0 && !r.High.Inclusive {
						return false
					}
				}
				return true
			}
			var want []uint64
			seen := map[uint64]bool{}
			for j := range all {
				e := all[j]
				if backward {
					e = all[len(all)-1-j]
				}
				if in(e) && !seen[e.seq] {
					seen[e.seq] = true
					want = append(want, e.seq)
				}
			}

			var got []uint64
			index.Walk(prefix, r, backward, func(seq uint64) bool {
				got = append(got, seq)
				return true
			})
			require.Equal(t, len(want), len(got), "round %d prefix %v range %+v backward %v", round, prefix, r, backward)
			for j := range want {
				require.True(t, want[j] == got[j], "round %d prefix %v range %+v backward %v: document %d", round, prefix, r, backward, j)
			}

			// a walk stops when asked
			if len(want) > 2 {
				n := 0
				index.Walk(prefix, r, backward, func(uint64) bool {
					n++
					return n < 2
				})
				assert.Equal(t, 2, n)
			}
		}
	}
}
