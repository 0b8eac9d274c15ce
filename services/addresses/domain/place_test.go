package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestPlaceSupersedesOnlyAnOlderVersion(t *testing.T) {
	for _, c := range []struct {
		have *Place
		v    int64
		want bool
	}{
		{nil, 1, true},
		{&Place{Version: 1}, 2, true},
		{&Place{Version: 2}, 2, false}, // a redelivery
		{&Place{Version: 3}, 2, false}, // a late one never rolls a name back
	} {
		if got := (Place{Version: c.v}).Supersedes(c.have); got != c.want {
			t.Errorf("version %d over %+v: %v, want %v", c.v, c.have, got, c.want)
		}
	}
}

func TestCheckPlace(t *testing.T) {
	cities := map[string]Place{"cit_1": {ID: "cit_1"}, "cit_2": {ID: "cit_2"}}
	areas := map[string]Place{"are_1": {ID: "are_1", City: "cit_1"}}
	if err := CheckPlace(cities, areas, "cit_1", "are_1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, CheckPlace(cities, areas, "cit_9", "are_1"), apperr.NotFound, "city cit_9 does not exist")
	wantCode(t, CheckPlace(cities, areas, "cit_1", "are_9"), apperr.NotFound, "area are_9 does not exist")
	wantCode(t, CheckPlace(cities, areas, "cit_2", "are_1"), apperr.InvalidArgument, "area: are_1 lies in another city than cit_2")
}
