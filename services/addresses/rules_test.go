package addresses

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestCheckCoordinate(t *testing.T) {
	ok := []string{"25.2048", "-33.9", "0", "90", "-180", " 55.27 "}
	bad := []string{"", "abc", "1e2", "0x10", "NaN", "Inf", "91", "-200", "12,5"}
	for _, v := range ok {
		if err := checkCoordinate("longitude", &v, 180); err != nil {
			t.Errorf("%q refused: %v", v, err)
		}
	}
	for _, v := range bad {
		if err := checkCoordinate("latitude", &v, 90); !apperr.Is(err, apperr.InvalidArgument) {
			t.Errorf("%q accepted", v)
		}
	}
	if checkCoordinate("latitude", nil, 90) != nil {
		t.Error("absent refused")
	}
}

func TestSuccessorIsTheMostRecentOtherActiveAddress(t *testing.T) {
	// Ids are random: the most recent is the latest creationTime, whatever
	// the ids say (the greatest id breaks a tie of the same millisecond).
	docs := []addressDoc{
		{ID: "adr_9", IsActive: true, CreationTime: 100},
		{ID: "adr_3", IsActive: false, CreationTime: 400},
		{ID: "adr_2", IsActive: true, CreationTime: 300},
		{ID: "adr_1", IsActive: true, CreationTime: 300},
		{ID: "adr_4", IsActive: true, CreationTime: 500}, // the one leaving
	}
	if got := successor(docs, "adr_4"); got != "adr_2" {
		t.Fatalf("successor %q, want adr_2", got)
	}
	if got := successor(docs[4:], "adr_4"); got != "" {
		t.Fatalf("successor %q, want none", got)
	}
}
