package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestCheckCoordinate(t *testing.T) {
	ok := []string{"25.2048", "-33.9", "0", "90", "-180", " 55.27 "}
	bad := []string{"", "abc", "1e2", "0x10", "NaN", "Inf", "91", "-200", "12,5"}
	for _, v := range ok {
		if err := CheckCoordinate("longitude", &v, 180); err != nil {
			t.Errorf("%q refused: %v", v, err)
		}
	}
	for _, v := range bad {
		if err := CheckCoordinate("latitude", &v, 90); !apperr.Is(err, apperr.InvalidArgument) {
			t.Errorf("%q accepted", v)
		}
	}
	if CheckCoordinate("latitude", nil, 90) != nil {
		t.Error("absent refused")
	}
}

func TestCheckCoordinatesLimits(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		lat, lng *string
		field    string // "" accepted
	}{
		{nil, nil, ""},
		{s("90"), s("180"), ""},
		{s("-90"), s("-180"), ""},
		{s("90.0001"), nil, "latitude"},
		{nil, s("180.0001"), "longitude"},
		{s("100"), s("100"), "latitude"}, // a longitude's range is not a latitude's
		{s("25.2"), s("x"), "longitude"},
	} {
		err := CheckCoordinates(c.lat, c.lng)
		if c.field == "" {
			if err != nil {
				t.Errorf("%v,%v refused: %v", c.lat, c.lng, err)
			}
			continue
		}
		e := apperr.From(err)
		if e == nil || e.Code != apperr.InvalidArgument || e.Details["field"] != c.field {
			t.Errorf("%v,%v: %v, want INVALID_ARGUMENT on %s", c.lat, c.lng, err, c.field)
		}
	}
}

func TestSuccessorIsTheMostRecentOtherActiveAddress(t *testing.T) {
	// Ids are random: the most recent is the latest creationTime, whatever
	// the ids say (the greatest id breaks a tie of the same millisecond).
	docs := []Address{
		{ID: "adr_9", IsActive: true, CreationTime: 100},
		{ID: "adr_3", IsActive: false, CreationTime: 400},
		{ID: "adr_2", IsActive: true, CreationTime: 300},
		{ID: "adr_1", IsActive: true, CreationTime: 300},
		{ID: "adr_4", IsActive: true, CreationTime: 500}, // the one leaving
	}
	if got := Successor(docs, "adr_4"); got != "adr_2" {
		t.Fatalf("successor %q, want adr_2", got)
	}
	if got := Successor(docs[4:], "adr_4"); got != "" {
		t.Fatalf("successor %q, want none", got)
	}
}
