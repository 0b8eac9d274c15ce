package domain

import (
	"regexp"
	"testing"

	"marketplace/libs/apperr"
)

func TestProductList(t *testing.T) {
	s := func(v string) *string { return &v }
	yes := true
	l, err := NewProductList(s("  date   CAKE "), &yes, s("price_desc"))
	if err != nil || l.Search != "date CAKE" || l.Sort != "price_desc" {
		t.Fatalf("%+v %v", l, err)
	}
	for name, want := range map[string]bool{"Date cake": true, "Big date cake box": true, "Cake of dates": false} {
		if got := l.Matches(&Product{Name: name, IsAvailable: true}); got != want {
			t.Errorf("%q: %v", name, got)
		}
		if got := regexp.MustCompile(l.SearchPattern()).MatchString(name); got != want {
			t.Errorf("pattern on %q: %v", name, got)
		}
	}
	if l.Matches(&Product{Name: "Date cake"}) {
		t.Error("an unavailable product listed as available")
	}
	// The search is literal: a pattern's characters match themselves only.
	dot, _ := NewProductList(s("a.b"), nil, nil)
	if regexp.MustCompile(dot.SearchPattern()).MatchString("axb") || !regexp.MustCompile(dot.SearchPattern()).MatchString("A.B") {
		t.Error("the search is read as a pattern")
	}
	if all, _ := NewProductList(s("  "), nil, nil); all.Search != "" || all.SearchPattern() != "" || all.Sort != "added" {
		t.Errorf("a blank search %+v", all)
	}
	if _, err := NewProductList(s(" a "), nil, nil); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("one character: %v", err)
	}
	long := ""
	for range 101 {
		long += "x"
	}
	if _, err := NewProductList(&long, nil, nil); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("101 characters: %v", err)
	}
	for sort := range ProductSorts {
		if l, _ := NewProductList(nil, nil, &sort); l.Sort != sort {
			t.Errorf("sort %s", sort)
		}
	}
}
