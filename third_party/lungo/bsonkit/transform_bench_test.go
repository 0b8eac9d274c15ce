package bsonkit

import (
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// benchReview is shaped like the reviews service's stored review (what an
// InsertOne gives Transform and what a FindOne decodes into).
type benchReview struct {
	ID           string   `bson:"_id"`
	StoreID      string   `bson:"storeId"`
	StoreName    string   `bson:"storeName"`
	CustomerID   string   `bson:"customerId"`
	UserID       string   `bson:"userId"`
	CustomerName string   `bson:"customerName"`
	OrderID      string   `bson:"orderId,omitempty"`
	Rating       int      `bson:"rating"`
	Title        string   `bson:"title"`
	Comment      string   `bson:"comment"`
	PhotoIDs     []string `bson:"photoIds"`
	Verified     bool     `bson:"isVerifiedPurchase"`
	Helpful      int      `bson:"helpfulCount"`
	NotHelpful   int      `bson:"notHelpfulCount"`
	Wilson       float64  `bson:"wilson"`
	Hidden       bool     `bson:"hidden"`
	CreatedAt    int64    `bson:"createdAt"`
	UpdatedAt    int64    `bson:"updatedAt"`
}

func newBenchReview() benchReview {
	return benchReview{
		ID: "rev_0000000000000000000001", StoreID: "sto_000000000000000000042", StoreName: "A store",
		CustomerID: "cus_00000000000000000007", UserID: "user-7", CustomerName: "Customer Seven",
		OrderID: "ord_000000000000000000099", Rating: 4, Title: "Good", Comment: "Arrived on time, as described.",
		PhotoIDs: []string{"med_1", "med_2"}, Verified: true, Helpful: 12, NotHelpful: 3, Wilson: 0.52,
		CreatedAt: 1764000000000, UpdatedAt: 1764000000000,
	}
}

var benchSink Doc

// benchTransform measures Transform on in and, as "roundtrip", what it cost
// before the direct conversion (bson.Marshal, then bson.Unmarshal into a
// bson.D: Transfer).
func benchTransform(b *testing.B, in interface{}) {
	b.Run("transform", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			doc, err := Transform(in)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = doc
		}
	})
	b.Run("roundtrip", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var doc bson.D
			if err := Transfer(in, &doc); err != nil {
				b.Fatal(err)
			}
			benchSink = &doc
		}
	})
}

// BenchmarkTransformFilter: a filter by _id and one more field (the vote's).
func BenchmarkTransformFilter(b *testing.B) {
	benchTransform(b, bson.M{"_id": "rev_0000000000000000000001", "hidden": false})
}

// BenchmarkTransformUpdate: the vote's $set of three counters.
func BenchmarkTransformUpdate(b *testing.B) {
	benchTransform(b, bson.M{"$set": bson.M{"helpfulCount": 13, "notHelpfulCount": 3, "wilson": 0.55}})
}

// BenchmarkTransformStruct: an inserted document given as a struct.
func BenchmarkTransformStruct(b *testing.B) {
	benchTransform(b, newBenchReview())
}

// BenchmarkDecodeStruct: a found document decoded into the caller's struct
// ("roundtrip": bson.Marshal of the document, as before appendRaw).
func BenchmarkDecodeStruct(b *testing.B) {
	doc, err := Transform(newBenchReview())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var r benchReview
			if err := Decode(doc, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("roundtrip", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var r benchReview
			if err := Transfer(doc, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarshalAppend: a stored review's BSON (a database file's record;
// "driver": bson.MarshalAppend).
func BenchmarkMarshalAppend(b *testing.B) {
	doc, err := Transform(newBenchReview())
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.Run("bsonkit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := MarshalAppend(buf[:0], doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("driver", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := bson.MarshalAppend(buf[:0], doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
