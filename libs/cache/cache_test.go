package cache

import (
	"testing"
	"time"
)

func TestTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New[string, int](time.Minute, 2)
	c.now = func() time.Time { return now }
	c.Put("a", 1)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("fresh: %v %v", v, ok)
	}
	now = now.Add(time.Minute)
	if _, ok := c.Get("a"); ok {
		t.Fatal("an expired entry was served")
	}
	c.Put("a", 1)
	c.Put("b", 2)
	c.Put("c", 3) // over max: everything before is forgotten
	if _, ok := c.Get("a"); ok {
		t.Fatal("the cache grew past its bound")
	}
	if v, ok := c.Get("c"); !ok || v != 3 {
		t.Fatal("the newest entry is missing")
	}
	c.Forget("c")
	if _, ok := c.Get("c"); ok {
		t.Fatal("forgotten entry served")
	}
}

func TestLookupKeepsFoundValuesOnly(t *testing.T) {
	c := New[string, int](time.Minute, 10)
	calls := 0
	one := 1
	fetch := func() (*int, error) { calls++; return &one, nil }
	for range 3 {
		if v, err := c.Lookup("a", fetch); err != nil || *v != 1 {
			t.Fatalf("lookup: %v %v", v, err)
		}
	}
	if calls != 1 {
		t.Fatalf("fetched %d times", calls)
	}
	none := func() (*int, error) { calls++; return nil, nil }
	c.Lookup("b", none)
	c.Lookup("b", none)
	if calls != 3 {
		t.Fatal("a miss was kept")
	}
}
