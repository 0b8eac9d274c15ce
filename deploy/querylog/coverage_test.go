package querylog

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

func keys(kv ...any) []SortKey {
	var out []SortKey
	for i := 0; i < len(kv); i += 2 {
		out = append(out, SortKey{Field: kv[i].(string), Dir: kv[i+1].(int)})
	}
	return out
}

// The planner rules of coverage.go, one case each: the served ones and the
// ones a production MongoDB would answer with a scan or an in-memory sort.
func TestServeFollowsThePlannerRules(t *testing.T) {
	exists := &Filter{Preds: []Pred{{Field: "orderId", Kind: PredOpen, NonNull: true, Cond: `{"$exists": true}`}}}
	active, _ := ParseFilter(bson.M{"isActive": true})
	idx := []IndexSpec{
		{Keys: keys("storeId", 1, "createdAt", -1, "_id", -1)},
		{Keys: keys("status", 1, "releaseAt", 1)},
		{Keys: keys("email", 1), Unique: true},
		{Keys: keys("customerId", 1, "storeId", 1), Unique: true},
		{Keys: keys("orderId", 1), Unique: true, Partial: exists},
		{Keys: keys("isActive", 1), Unique: true, Partial: &active},
		{Keys: keys("name", 1)},
		{Keys: keys("sentAt", 1)},
	}
	cases := []struct {
		name    string
		filter  any
		sort    []SortKey
		want    string // "" served, else a word of the reason
		limited bool
	}{
		{"_id equality", bson.M{"_id": "x", "other": 1}, keys("zzz", 1), "", false},
		{"_id $in", bson.M{"_id": bson.M{"$in": bson.A{"a", "b"}}}, nil, "", false},
		{"_id $in, sorted by another field", bson.M{"_id": bson.M{"$in": bson.A{"a", "b"}}}, keys("name", 1), "", false},
		{"_id range sorted by _id", bson.M{"_id": bson.M{"$lt": "x"}}, keys("_id", -1), "", false},
		{"no filter", bson.M{}, nil, "no filter", false},
		{"no filter, sorted along an index, limited", bson.M{}, keys("name", 1), "", true},
		{"no filter, sorted backwards along an index, limited", bson.D{}, keys("sentAt", -1), "", true},
		{"no filter, sorted along an index, no limit", bson.M{}, keys("name", 1), "reads every document", false},
		{"unindexed field", bson.M{"city": "Dubai"}, nil, "no index starts with", false},
		{"second key only", bson.M{"createdAt": bson.M{"$gt": 1}}, nil, "no index starts with", false},
		{"equality prefix", bson.M{"storeId": "s"}, nil, "", false},
		{"equality then sort", bson.M{"storeId": "s"}, keys("createdAt", -1, "_id", -1), "", false},
		{"equality then reversed sort", bson.M{"storeId": "s"}, keys("createdAt", 1, "_id", 1), "", false},
		{"mixed directions", bson.M{"storeId": "s"}, keys("createdAt", 1, "_id", -1), "in-memory sort", false},
		{"sort missing the tie-breaker key", bson.M{"status": "held"}, keys("releaseAt", 1, "_id", 1), "in-memory sort", false},
		{"sort on an unindexed field", bson.M{"storeId": "s"}, keys("total", -1), "in-memory sort", false},
		{"range then sort (ESR broken)", bson.M{"status": bson.M{"$gt": "a"}}, keys("releaseAt", 1), "in-memory sort", false},
		{"equality then range on the next key", bson.M{"status": "held", "releaseAt": bson.M{"$lte": 5}}, keys("releaseAt", 1), "", false},
		{"sort key fixed by an equality", bson.M{"status": "held", "releaseAt": 5}, keys("status", 1, "releaseAt", 1), "", false},
		{"$in prefix then sort", bson.M{"status": bson.M{"$in": bson.A{"a", "b"}}}, keys("releaseAt", 1), "", false},
		{"filter an index does not serve, order it does", bson.M{"city": "Dubai"}, keys("name", 1), "no index starts with", false},
		{"only $ne", bson.M{"status": bson.M{"$ne": "x"}}, nil, "nothing an index can select on", false},
		{"$exists false is an equality on null", bson.M{"status": bson.M{"$exists": false}}, nil, "", false},
		{"$expr", bson.M{"$expr": bson.M{"$gt": bson.A{"$a", "$b"}}}, nil, "nothing an index can select on", false},
		{"anchored regex", bson.M{"name": primitive.Regex{Pattern: "^Bur"}}, nil, "", false},
		{"unanchored regex", bson.M{"name": primitive.Regex{Pattern: "bur"}}, nil, "nothing an index can select on", false},
		{"unique equality on all keys, any sort", bson.M{"customerId": "c", "storeId": "s"}, keys("zzz", 1), "", false},
		{"unique index, not all keys", bson.M{"customerId": "c"}, keys("zzz", 1), "in-memory sort", false},
		{"partial index implied by a value", bson.M{"orderId": "o1"}, nil, "", false},
		{"partial index not implied", bson.M{"orderId": bson.M{"$in": bson.A{"o1", nil}}}, nil, "no index starts with", false},
		{"partial index with the same condition", bson.M{"isActive": true}, nil, "", false},
		{"partial index with another value", bson.M{"isActive": false}, nil, "no index starts with", false},
		{"$or of served branches", bson.M{"$or": bson.A{bson.M{"email": "a"}, bson.M{"storeId": "s"}}}, nil, "", false},
		{"$or with an unserved branch", bson.M{"$or": bson.A{bson.M{"email": "a"}, bson.M{"city": "x"}}}, nil, "collection scan", false},
		{"$or under a served equality", bson.M{"storeId": "s", "$or": bson.A{bson.M{"city": "a"}, bson.M{"total": 1}}}, nil, "", false},
		{"keyset page after a cursor", bson.M{"$and": bson.A{bson.M{"storeId": "s"}, bson.M{"$or": bson.A{
			bson.M{"createdAt": bson.M{"$lt": 5}}, bson.M{"createdAt": 5, "_id": bson.M{"$lt": "x"}}}}}}, keys("createdAt", -1, "_id", -1), "", true},
		{"$and flattened", bson.M{"$and": bson.A{bson.M{"status": "a"}, bson.M{"releaseAt": bson.M{"$lt": 1}}}}, keys("releaseAt", 1), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ParseFilter(c.filter)
			if err != nil {
				t.Fatal(err)
			}
			got := Serve(f, c.sort, c.limited, idx)
			switch {
			case c.want == "" && got != "":
				t.Errorf("%s sort %v: refused (%s), want served", f, c.sort, got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("%s sort %v: %q, want a refusal with %q", f, c.sort, got, c.want)
			}
		})
	}
}

// Recording: every operation's filter and sort, the indexes created, the
// declared scans, and the check over them.
func TestQueryLogRecordsAndChecks(t *testing.T) {
	ctx := context.Background()
	log := RecordQueries()
	defer StopRecording()
	db, err := store.Open(ctx, store.Options{Name: "qlog", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if err := db.EnsureIndexes(ctx, store.Index{Collection: "orders", Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "_id", Value: -1}}, Name: "by_store"}); err != nil {
		t.Fatal(err)
	}
	c := db.Collection("orders")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "o1", "storeId": "s", "city": "Dubai"}); err != nil {
		t.Fatal(err)
	}
	// Served.
	_, _ = c.Find(ctx, bson.M{"storeId": "s"}, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}))
	_ = c.FindOne(ctx, bson.M{"_id": "o1"})
	_, _ = c.UpdateByID(ctx, "o1", bson.M{"$set": bson.M{"x": 1}})
	_, _ = c.CountDocuments(ctx, bson.M{"storeId": "s"})
	// Declared.
	_, _ = c.Find(store.Scan(ctx, "a test's small list"), bson.M{})
	// Refused: a scan on update, an in-memory sort on findOneAndUpdate, a count of everything.
	_, _ = c.UpdateMany(ctx, bson.M{"city": "Dubai"}, bson.M{"$set": bson.M{"x": 2}})
	_ = c.FindOneAndUpdate(ctx, bson.M{"storeId": "s"}, bson.M{"$set": bson.M{"x": 3}}, options.FindOneAndUpdate().SetSort(bson.D{{Key: "city", Value: 1}}))
	_, _ = c.CountDocuments(ctx, bson.D{})
	// In a transaction, the session still reaches the engine.
	if err := db.Tx(ctx, func(tx context.Context) error {
		_, err := db.Collection("orders").DeleteOne(tx, bson.M{"storeId": "s", "_id": "o1"})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	if ix := log.Indexes("qlog", "orders"); len(ix) != 1 || keySignature(ix[0].Keys) != "{storeId:1,_id:-1}" {
		t.Fatalf("indexes recorded: %+v", ix)
	}
	ops := map[string]bool{}
	for _, q := range log.Queries() {
		if q.Database != "qlog" {
			continue
		}
		ops[q.Op] = true
		if q.Op == "find" && q.Filter.String() == "{}" && q.Scan != "a test's small list" {
			t.Errorf("declared scan recorded without its reason: %+v", q)
		}
		if len(q.Callers) == 0 || !strings.Contains(q.Callers[0], "coverage_test.go") {
			t.Errorf("caller of %s: %v", q.Op, q.Callers)
		}
	}
	for _, op := range []string{"find", "findOne", "update", "count", "findOneAndUpdate", "delete"} {
		if !ops[op] {
			t.Errorf("no %s recorded (got %v)", op, ops)
		}
	}
	var refused []string
	for _, p := range log.Check() {
		if p.Query.Database == "qlog" {
			refused = append(refused, p.Query.Op+" "+p.Query.Filter.String())
		}
	}
	want := []string{"count {}", "findOneAndUpdate {storeId:eq}", "update {city:eq}"}
	if strings.Join(refused, "; ") != strings.Join(want, "; ") {
		t.Errorf("refused %v, want %v", refused, want)
	}
}
