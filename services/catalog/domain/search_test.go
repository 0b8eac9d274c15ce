package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestSearchSettingsSupersedeOnlyAnOlderVersion(t *testing.T) {
	for _, c := range []struct {
		have *SearchSettings
		v    int64
		want bool
	}{
		{nil, 0, true}, // a configuration without history, nothing held
		{&SearchSettings{Version: 0}, 1, true},
		{&SearchSettings{Version: 1}, 0, false}, // the announcement never over a numbered version
		{&SearchSettings{Version: 2}, 2, false}, // a redelivery
		{&SearchSettings{Version: 3}, 2, false}, // a late one
	} {
		if got := (SearchSettings{Version: c.v}).Supersedes(c.have); got != c.want {
			t.Errorf("version %d over %+v: %v, want %v", c.v, c.have, got, c.want)
		}
	}
}

func TestCheckSettings(t *testing.T) {
	for _, c := range []struct {
		s  SearchSettings
		ok bool
	}{{SearchSettings{ConfigID: "pcf_1", Version: 0}, true}, {SearchSettings{ConfigID: "pcf_1", Version: 3}, true},
		{SearchSettings{Version: 1}, false}, {SearchSettings{ConfigID: "pcf_1", Version: -1}, false}} {
		if err := CheckSettings(c.s); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.s, err)
		}
	}
}

func TestTheConfigurationInForce(t *testing.T) {
	const now = 1000
	cs := []SearchSettings{
		{ConfigID: "pcf_1", IsActive: true, EffectiveDate: 500},
		{ConfigID: "pcf_2", IsActive: true, EffectiveDate: 900},
		{ConfigID: "pcf_3", IsActive: true, EffectiveDate: 1001}, // not yet
		{ConfigID: "pcf_4", IsActive: false, EffectiveDate: 950}, // never
	}
	got, err := InForce(cs, now)
	if err != nil || got.ConfigID != "pcf_2" {
		t.Fatalf("%+v %v", got, err)
	}
	if got, _ := InForce(cs, 1001); got.ConfigID != "pcf_3" {
		t.Fatalf("effective at its date: %+v", got)
	}
	tie := []SearchSettings{{ConfigID: "pcf_a", IsActive: true, EffectiveDate: 900}, {ConfigID: "pcf_b", IsActive: true, EffectiveDate: 900}}
	if got, _ := InForce(tie, now); got.ConfigID != "pcf_b" {
		t.Fatalf("a tie goes to the greater id: %+v", got)
	}
	_, err = InForce(cs[2:], now)
	wantCode(t, err, apperr.FailedPrecondition, "there is no active platform configuration, so no search radius: an administrator creates it (admins.platformAdmin.createInitialPlatformConfig)")
	_, err = InForce(nil, now)
	wantCode(t, err, apperr.FailedPrecondition, "")
}

func TestSearchRadius(t *testing.T) {
	s := SearchSettings{DefaultSearchRadiusKm: 5, MaxSearchRadiusKm: 30}
	for _, c := range []struct {
		asked *float64
		want  float64
		msg   string
	}{
		{nil, 5, ""},
		{ptr(30.0), 30, ""},
		{ptr(0.5), 0.5, ""},
		{ptr(30.01), 0, "radiusKm: must be at most 30 (the platform's maxSearchRadiusKm)"},
		{ptr(0.0), 0, "radiusKm: must be greater than 0"},
		{ptr(-1.0), 0, "radiusKm: must be greater than 0"},
	} {
		got, err := s.Radius(c.asked)
		if c.msg != "" {
			wantCode(t, err, apperr.InvalidArgument, c.msg)
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %v %v, want %v", c.asked, got, err, c.want)
		}
	}
	if CheckRadius(nil) != nil || CheckRadius(ptr(1.0)) != nil {
		t.Fatal("a radius refused")
	}
	wantCode(t, CheckRadius(ptr(0.0)), apperr.InvalidArgument, "radiusKm: must be greater than 0")
}

func TestNearestOpenStoresWithinTheRadius(t *testing.T) {
	at := func(id string, lat, lng float64, open bool) Store {
		return Store{ID: id, Latitude: &lat, Longitude: &lng, IsOpen: &open}
	}
	cands := []Store{
		at("sto_far", 25.30, 55.27, true),  // ~10.5 km north
		at("sto_near", 25.21, 55.27, true), // ~0.6 km
		at("sto_b", 25.22, 55.27, true),    // ~1.7 km
		at("sto_a", 25.22, 55.27, true),    // the same distance: by id
		at("sto_closed", 25.205, 55.27, false),
		{ID: "sto_nowhere"},
	}
	got := Nearest(cands, 25.2048, 55.27, 5, 10)
	ids := []string{}
	for _, h := range got {
		ids = append(ids, h.Store.ID)
	}
	if want := []string{"sto_near", "sto_a", "sto_b"}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("found %v, want %v", ids, want)
	}
	if d := got[0].DistanceKm; d != roundKm(d) || d < 0.5 || d > 0.7 {
		t.Fatalf("distance %v", d)
	}
	if got := Nearest(cands, 25.2048, 55.27, 5, 2); len(got) != 2 {
		t.Fatalf("limit: %d", len(got))
	}
	if got := Nearest(cands, 25.2048, 55.27, 20, 10); len(got) != 4 {
		t.Fatalf("a wider radius: %d", len(got))
	}
}
