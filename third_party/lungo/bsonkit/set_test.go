package bsonkit

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
)

// setState is what a set holds, as the tests compare it: the documents in
// order, their sequence numbers, and the sequence number to come.
func setState(t *testing.T, s *Set) (List, []uint64) {
	t.Helper()
	var seqs []uint64
	list := List{}
	s.Ascend(0, func(seq uint64, doc Doc) bool {
		seqs = append(seqs, seq)
		list = append(list, doc)
		return true
	})
	assert.Equal(t, list, s.List())
	assert.Equal(t, len(list), s.Len())
	for i, doc := range list {
		seq, ok := s.Seq(doc)
		assert.True(t, ok)
		assert.Equal(t, seqs[i], seq)
		assert.True(t, s.Has(doc))
	}
	return list, seqs
}

func TestSet(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}

	set := NewSet(nil)

	ok := set.Add(d1)
	assert.True(t, ok)
	list, seqs := setState(t, set)
	assert.Equal(t, List{d1}, list)
	assert.Equal(t, []uint64{1}, seqs)

	ok = set.Add(d1)
	assert.False(t, ok)
	list, _ = setState(t, set)
	assert.Equal(t, List{d1}, list)

	ok = set.Add(d2)
	assert.True(t, ok)
	list, seqs = setState(t, set)
	assert.Equal(t, List{d1, d2}, list)
	assert.Equal(t, []uint64{1, 2}, seqs)

	ok = set.Remove(d1)
	assert.True(t, ok)
	assert.False(t, set.Has(d1))
	list, _ = setState(t, set)
	assert.Equal(t, List{d2}, list)

	// a document added again goes to the end, with a new number
	ok = set.Add(d1)
	assert.True(t, ok)
	list, seqs = setState(t, set)
	assert.Equal(t, List{d2, d1}, list)
	assert.Equal(t, []uint64{2, 3}, seqs)

	ok = set.Remove(d2)
	assert.True(t, ok)
	list, _ = setState(t, set)
	assert.Equal(t, List{d1}, list)

	ok = set.Remove(d1)
	assert.True(t, ok)
	list, _ = setState(t, set)
	assert.Equal(t, List{}, list)
	assert.Nil(t, set.First())
	assert.Nil(t, set.Last())

	ok = set.Remove(d1)
	assert.False(t, ok)
	assert.Equal(t, uint64(4), set.Next())
}

func TestSetReplace(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}
	d3 := &bson.D{}
	d4 := &bson.D{}

	set := NewSet(List{d1, d2, d3})

	// the replacement takes the place and the number of the replaced
	ok := set.Replace(d2, d4)
	assert.True(t, ok)
	assert.False(t, set.Has(d2))
	list, seqs := setState(t, set)
	assert.Equal(t, List{d1, d4, d3}, list)
	assert.Equal(t, []uint64{1, 2, 3}, seqs)

	ok = set.Replace(d2, d4)
	assert.False(t, ok)
	list, _ = setState(t, set)
	assert.Equal(t, List{d1, d4, d3}, list)

	ok = set.Replace(d1, d3)
	assert.False(t, ok)
	list, _ = setState(t, set)
	assert.Equal(t, List{d1, d4, d3}, list)

	assert.Equal(t, d1, set.First())
	assert.Equal(t, d3, set.Last())
}

func TestSetAddAt(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}
	d3 := &bson.D{}
	d4 := &bson.D{}

	// read back out of order, with gaps
	set := NewSet(nil)
	assert.True(t, set.AddAt(d2, 7))
	assert.True(t, set.AddAt(d1, 3))
	assert.False(t, set.AddAt(d3, 7)) // the place is taken
	assert.False(t, set.AddAt(d1, 9)) // already added
	list, seqs := setState(t, set)
	assert.Equal(t, List{d1, d2}, list)
	assert.Equal(t, []uint64{3, 7}, seqs)

	// later documents come after the highest number
	assert.True(t, set.Add(d3))
	assert.True(t, set.AddAt(d4, 5))
	list, seqs = setState(t, set)
	assert.Equal(t, List{d1, d4, d2, d3}, list)
	assert.Equal(t, []uint64{3, 5, 7, 8}, seqs)
}

func TestSetAfter(t *testing.T) {
	d1 := &bson.D{}
	d2 := &bson.D{}
	d3 := &bson.D{}
	other := &bson.D{}

	set := NewSet(List{d1, d2, d3})

	next, ok := set.After(nil)
	assert.True(t, ok)
	assert.Equal(t, d1, next)

	next, ok = set.After(d1)
	assert.True(t, ok)
	assert.Equal(t, d2, next)

	set.Remove(d2)
	next, ok = set.After(d1)
	assert.True(t, ok)
	assert.Equal(t, d3, next)

	next, ok = set.After(d3)
	assert.True(t, ok)
	assert.Nil(t, next)

	_, ok = set.After(other)
	assert.False(t, ok)
}

// TestSetScanManyChunks scans more documents than one chunk holds, from
// several starting points, and with documents removed while scanning.
func TestSetScanManyChunks(t *testing.T) {
	var docs List
	for i := 0; i < 5*scanChunk+7; i++ {
		docs = append(docs, &bson.D{{Key: "i", Value: i}})
	}
	set := NewSet(docs)

	var got List
	set.Scan(func(doc Doc) bool {
		got = append(got, doc)
		return true
	})
	assert.Equal(t, docs, got)

	// stop early
	n := 0
	set.Scan(func(Doc) bool {
		n++
		return n < scanChunk+3
	})
	assert.Equal(t, scanChunk+3, n)

	// from the middle
	var seqs []uint64
	set.Ascend(uint64(2*scanChunk), func(seq uint64, _ Doc) bool {
		seqs = append(seqs, seq)
		return true
	})
	assert.Len(t, seqs, len(docs)-2*scanChunk+1)
	assert.Equal(t, uint64(2*scanChunk), seqs[0])

	// every other document removed while scanning
	i := 0
	set.Scan(func(doc Doc) bool {
		if i%2 == 1 {
			assert.True(t, set.Remove(doc))
		}
		i++
		return true
	})
	assert.Equal(t, len(docs), i)
	assert.Equal(t, (len(docs)+1)/2, set.Len())
}

// TestSetCloneIsolation checks snapshots: a clone does not see the
// original's later writes, nor the original the clone's.
func TestSetCloneIsolation(t *testing.T) {
	var docs List
	for i := 0; i < 1000; i++ {
		docs = append(docs, &bson.D{{Key: "i", Value: i}})
	}
	base := NewSet(docs)
	snapshot := base.Clone()

	// write to the base: insert, replace, remove
	added := &bson.D{{Key: "i", Value: "added"}}
	repl := &bson.D{{Key: "i", Value: "replaced"}}
	require.True(t, base.Add(added))
	require.True(t, base.Replace(docs[10], repl))
	require.True(t, base.Remove(docs[20]))

	// the snapshot is unchanged
	list, seqs := setState(t, snapshot)
	assert.Equal(t, docs, list)
	assert.Equal(t, uint64(11), seqs[10])
	assert.True(t, snapshot.Has(docs[20]))
	assert.False(t, snapshot.Has(added))
	assert.False(t, snapshot.Has(repl))
	assert.Equal(t, uint64(1001), snapshot.Next())

	// the base has its writes, the replacement in the replaced's place
	list, _ = setState(t, base)
	assert.Len(t, list, 1000)
	assert.Equal(t, repl, list[10])
	assert.Equal(t, added, list[len(list)-1])
	seq, _ := base.Seq(repl)
	assert.Equal(t, uint64(11), seq)

	// writes to the snapshot do not reach the base
	require.True(t, snapshot.Remove(docs[0]))
	assert.True(t, base.Has(docs[0]))
	other := &bson.D{}
	require.True(t, snapshot.Add(other))
	assert.False(t, base.Has(other))
	seq, _ = snapshot.Seq(other)
	assert.Equal(t, uint64(1001), seq)
}

// TestSetConcurrentClones clones one committed set from many goroutines at
// once, each writing to its clone, while others scan the original (run with
// -race: the trees' locks cover the clone's write to the original).
func TestSetConcurrentClones(t *testing.T) {
	var docs List
	for i := 0; i < 2000; i++ {
		docs = append(docs, &bson.D{{Key: "i", Value: i}})
	}
	base := NewSet(docs)

	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(2)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				clone := base.Clone()
				doc := docs[(g*50+k)%len(docs)]
				repl := &bson.D{{Key: "g", Value: g}}
				assert.True(t, clone.Replace(doc, repl))
				assert.True(t, clone.Add(&bson.D{}))
				assert.True(t, clone.Remove(docs[(g+k)%7]) || docs[(g+k)%7] == doc)
				assert.Equal(t, len(docs)+1-1, clone.Len()-boolInt(docs[(g+k)%7] == doc))
				assert.True(t, base.Has(doc))
			}
		}(g)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				n := 0
				base.Scan(func(doc Doc) bool {
					if doc != docs[n] {
						t.Errorf("document %d changed under a scan", n)
						return false
					}
					n++
					return true
				})
				assert.Equal(t, len(docs), n)
			}
		}()
	}
	wg.Wait()

	list, _ := setState(t, base)
	assert.Equal(t, docs, list)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
