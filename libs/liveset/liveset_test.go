package liveset

import (
	"fmt"
	"testing"
)

func reviewWrite(id, store, customer string) *Writes {
	w := &Writes{}
	cw := w.Coll("reviews", []string{"_id", "storeId", "customerId"})
	cw.Add("_id", id)
	cw.Add("storeId", store)
	cw.Add("customerId", customer)
	return w
}

func TestTouches(t *testing.T) {
	vote := reviewWrite("r1", "A", "C")
	all := &Writes{}
	all.Coll("reviews", []string{"_id", "storeId"}).SetAll()
	for _, c := range []struct {
		name string
		w    *Writes
		r    Read
		want bool
	}{
		{"a write to store A touches a read of store A", vote, Read{Coll: "reviews", Field: "storeId", Values: []string{"A"}}, true},
		{"not a read of store B", vote, Read{Coll: "reviews", Field: "storeId", Values: []string{"B"}}, false},
		{"a read of A or B", vote, Read{Coll: "reviews", Field: "storeId", Values: []string{"B", "A"}}, true},
		{"a read that listed the review", vote, Read{Coll: "reviews", Field: "_id", Values: []string{"r1"}}, true},
		{"not one that listed another", vote, Read{Coll: "reviews", Field: "_id", Values: []string{"r2"}}, false},
		{"a whole-collection read", vote, Read{Coll: "reviews"}, true},
		{"not another collection", vote, Read{Coll: "flags"}, false},
		{"not another collection's key", vote, Read{Coll: "flags", Field: "reviewId", Values: []string{"r1"}}, false},
		{"a field the write does not report", vote, Read{Coll: "reviews", Field: "status", Values: []string{"pending"}}, true},
		{"values not known", all, Read{Coll: "reviews", Field: "storeId", Values: []string{"Z"}}, true},
		{"unknown writes touch everything", &Writes{Unknown: true}, Read{Coll: "x", Field: "y", Values: []string{"z"}}, true},
		{"an empty write touches nothing", &Writes{}, Read{Coll: "reviews"}, false},
	} {
		if got := c.w.Touches(c.r); got != c.want {
			t.Errorf("%s: Touches = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMergeKeepsOnlyFieldsEveryPartReported(t *testing.T) {
	w := reviewWrite("r1", "A", "C")
	o := &Writes{}
	o.Coll("reviews", []string{"_id", "storeId"}).Add("storeId", "B")
	w.Merge(o)
	if r := (Read{Coll: "reviews", Field: "customerId", Values: []string{"X"}}); !w.Touches(r) {
		t.Error("customerId is not reported by every part: a read keyed by it must be touched")
	}
	if !w.Touches(Read{Coll: "reviews", Field: "storeId", Values: []string{"B"}}) || !w.Touches(Read{Coll: "reviews", Field: "storeId", Values: []string{"A"}}) {
		t.Error("both stores' values are in the merge")
	}
	if w.Touches(Read{Coll: "reviews", Field: "storeId", Values: []string{"Q"}}) {
		t.Error("store Q was not written")
	}
	w.Merge(&Writes{Unknown: true})
	if !w.Unknown {
		t.Error("merging an unknown write makes it unknown")
	}
}

func TestTooManyValuesMeanAll(t *testing.T) {
	w := &Writes{}
	cw := w.Coll("orders", []string{"_id"})
	for i := range MaxValues + 1 {
		cw.Add("_id", fmt.Sprint(i))
	}
	if !cw.All || !w.Touches(Read{Coll: "orders", Field: "_id", Values: []string{"not written"}}) {
		t.Fatal("past MaxValues the entry must say All")
	}
}

func TestEncodeDecode(t *testing.T) {
	w := reviewWrite("r1", "A", "C")
	got, err := DecodeWrites(w.Encode())
	if err != nil || !got.Touches(Read{Coll: "reviews", Field: "storeId", Values: []string{"A"}}) || got.Touches(Read{Coll: "reviews", Field: "storeId", Values: []string{"B"}}) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	rs := Reads{{Coll: "reviews", Field: "storeId", Values: []string{"A"}}, {Coll: "flags"}}
	back, err := DecodeReads(rs.Encode())
	if err != nil || len(back) != 2 || back[1].Coll != "flags" || back[0].Values[0] != "A" {
		t.Fatalf("reads round trip: %+v, %v", back, err)
	}
	for _, bad := range []string{`{`, `[{"f":"storeId","v":["A"]}]`, `[{"c":"reviews","f":"storeId"}]`, `[{"c":"reviews","v":["A"]}]`} {
		if _, err := DecodeReads(bad); err == nil {
			t.Errorf("DecodeReads(%s) accepted", bad)
		}
	}
	for _, bad := range []string{`[`, `{"c":{"":{}}}`, `{"c":{"reviews":null}}`} {
		if _, err := DecodeWrites(bad); err == nil {
			t.Errorf("DecodeWrites(%s) accepted", bad)
		}
	}
}

func TestCompactKeepsSetsSoundInTheirSize(t *testing.T) {
	w := &Writes{}
	cw := w.Coll("orders", []string{"_id", "storeId"})
	for i := range 200 {
		cw.Add("_id", fmt.Sprintf("ord_%030d", i))
	}
	w.IDs = []string{"evt_1"}
	c := w.Compact(MaxHeader)
	if len(c.Encode()) > MaxHeader || !c.Colls["orders"].All || c.IDs != nil {
		t.Fatalf("compacted writes %d bytes: %.200s", len(c.Encode()), c.Encode())
	}
	if !c.Touches(Read{Coll: "orders", Field: "_id", Values: []string{"anything"}}) || c.Touches(Read{Coll: "stores"}) {
		t.Fatal("compacting must only widen what a write touches")
	}
	small := reviewWrite("r1", "A", "C")
	if got := small.Compact(MaxHeader); got.Encode() != small.Encode() {
		t.Fatal("a small set must stay as it is")
	}
	var rs Reads
	for i := range 100 {
		rs = append(rs, Read{Coll: "orders", Field: "_id", Values: []string{fmt.Sprintf("ord_%030d", i)}})
	}
	rs = append(rs, Read{Service: "catalog", Coll: "stores", Field: "_id", Values: []string{"s1"}})
	got := rs.Compact(MaxHeader)
	if len(got) != 2 || got[0].Field != "" || got[1].Service != "catalog" || got[1].Field != "" {
		t.Fatalf("compacted reads %v", got)
	}
}

func TestWriteSetsNameAtMostMaxIDs(t *testing.T) {
	var w Writes
	for i := range MaxIDs + 5 {
		w.Merge(&Writes{IDs: []string{fmt.Sprint("evt_", i)}})
	}
	if w.IDs != nil {
		t.Fatalf("%d ids kept, want none past %d", len(w.IDs), MaxIDs)
	}
	w.Merge(&Writes{IDs: []string{"evt_late"}})
	if w.IDs != nil {
		t.Fatal("ids came back after being dropped")
	}
}
