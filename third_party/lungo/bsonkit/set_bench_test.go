package bsonkit

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// BenchmarkSetCloneReplace is what a transaction's write costs the set: a
// clone of the committed set, then one document replaced in the clone.
func BenchmarkSetCloneReplace(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			list := make(List, n)
			for i := range list {
				list[i] = &bson.D{{Key: "i", Value: i}}
			}
			set := NewSet(list)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clone := set.Clone()
				if !clone.Replace(list[i%n], &bson.D{}) {
					b.Fatal("not replaced")
				}
			}
		})
	}
}
