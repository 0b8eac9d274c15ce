package mongokit

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// The finds served by indexes against the scan, on 50,000 review-shaped
// documents of 250 stores (200 each) with an index on (store, hidden,
// created desc, _id desc): the first 20 of a store sorted by the index's
// next key (covered: the walk stops after 20), and all 200 of a store
// unsorted (the embedded reviews service's shape: it sorts itself). Run:
// go test -run '^$' -bench BenchmarkFind ./mongokit

var planBench *Collection

func planBenchCollection(b *testing.B) *Collection {
	b.Helper()
	if planBench == nil {
		c := NewCollection(true)
		for i := 0; i < 50_000; i++ {
			doc := bsonkit.MustConvert(bson.M{
				"_id":     fmt.Sprintf("rev-%08d", i),
				"store":   fmt.Sprintf("store-%03d", i%250),
				"hidden":  i%50 == 0,
				"rating":  int32(1 + i%5),
				"created": int64(1_700_000_000_000 + i*1000),
				"body":    "a review of the benchmark, long enough to look like one",
			})
			if _, err := c.Insert(doc); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := c.CreateIndex("store_newest", IndexConfig{Key: &bson.D{
			{Key: "store", Value: int32(1)}, {Key: "hidden", Value: int32(1)},
			{Key: "created", Value: int32(-1)}, {Key: "_id", Value: int32(-1)},
		}}); err != nil {
			b.Fatal(err)
		}
		planBench = c
	}
	return planBench
}

func benchmarkFind(b *testing.B, sorted, index bool, want int) {
	c := planBenchCollection(b)
	query := bsonkit.MustConvert(bson.M{"store": "store-042", "hidden": false})
	var columns []bsonkit.Column
	limit := 0
	if sorted {
		columns = []bsonkit.Column{{Path: "created", Reverse: true}, {Path: "_id", Reverse: true}}
		limit = 20
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var list bsonkit.List
		var err error
		if index {
			p := c.planQuery(query, columns)
			if p == nil || p.covers != sorted {
				b.Fatal("not served as expected")
			}
			list, err = c.runPlan(p, query, columns, limit)
		} else {
			list, err = c.scan(query, columns, limit)
		}
		if err != nil || len(list) != want {
			b.Fatal(err, len(list))
		}
	}
}

func BenchmarkFindPrefixSortedLimit20Scan(b *testing.B)  { benchmarkFind(b, true, false, 20) }
func BenchmarkFindPrefixSortedLimit20Index(b *testing.B) { benchmarkFind(b, true, true, 20) }
func BenchmarkFindPrefixAll200Scan(b *testing.B)         { benchmarkFind(b, false, false, 200) }
func BenchmarkFindPrefixAll200Index(b *testing.B)        { benchmarkFind(b, false, true, 200) }
