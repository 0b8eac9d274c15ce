package convex

import (
	"math/rand/v2"
	"slices"
	"testing"

	"marketplace/libs/liveset"
)

// The index finds exactly the holders whose reads a write touches.
func TestIndexAgreesWithTouches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	colls, fields, values := []string{"reviews", "flags"}, []string{"_id", "storeId", "status"}, []string{"a", "b", "c", "d"}
	randReads := func() liveset.Reads {
		var rs liveset.Reads
		for range 1 + rng.IntN(2) {
			r := liveset.Read{Coll: colls[rng.IntN(2)]}
			if rng.IntN(4) > 0 {
				r.Field = fields[rng.IntN(3)]
				for range 1 + rng.IntN(2) {
					r.Values = append(r.Values, values[rng.IntN(4)])
				}
			}
			rs = append(rs, r)
		}
		return rs
	}
	randWrites := func() *liveset.Writes {
		w := &liveset.Writes{Unknown: rng.IntN(30) == 0}
		for range rng.IntN(3) {
			cw := w.Coll(colls[rng.IntN(2)], fields[:1+rng.IntN(3)])
			if rng.IntN(8) == 0 {
				cw.SetAll()
			}
			for range rng.IntN(4) {
				cw.Add(cw.Fields[rng.IntN(len(cw.Fields))], values[rng.IntN(4)])
			}
		}
		return w
	}
	for round := range 200 {
		x := newReadIndex[int]()
		held := map[int]liveset.Reads{}
		for i := range 30 {
			held[i] = randReads()
			x.Set(i, held[i])
		}
		for i := range 10 { // re-indexed and removed holders
			if i%2 == 0 {
				held[i] = randReads()
				x.Set(i, held[i])
			} else {
				delete(held, i)
				x.Remove(i)
			}
		}
		if x.Len() != len(held) {
			t.Fatalf("round %d: Len %d, want %d", round, x.Len(), len(held))
		}
		w := randWrites()
		var got, want []int
		x.Touched(w, func(i int) { got = append(got, i) })
		for i, rs := range held {
			if w.TouchesAny(rs) {
				want = append(want, i)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: write %s touched %v, want %v", round, w.Encode(), got, want)
		}
	}
	x := newReadIndex[int]()
	x.Set(1, liveset.Reads{{Coll: "reviews", Field: "storeId", Values: []string{"a"}}})
	x.Remove(1)
	if len(x.byColl) != 0 {
		t.Fatalf("Remove left %v", x.byColl)
	}
}
