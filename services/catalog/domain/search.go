package domain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"marketplace/libs/apperr"
)

// SearchSettings are one platform configuration's search radii, as the
// catalog keeps them (searchSettings), fed by config.changed: the catalog
// cannot call the configuration service (it calls the catalog).
type SearchSettings struct {
	ConfigID              string  `bson:"_id"`
	IsActive              bool    `bson:"isActive"`
	EffectiveDate         int64   `bson:"effectiveDate"`
	Version               int64   `bson:"version"`
	DefaultSearchRadiusKm float64 `bson:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `bson:"maxSearchRadiusKm"`
}

// CheckSettings refuses a configuration change without its id or with a
// negative version. Version 0 is a configuration made before its changes
// were numbered (announced at the configuration service's start): taken
// when nothing is held, replaced by its first numbered change.
func CheckSettings(s SearchSettings) error {
	if s.ConfigID == "" || s.Version < 0 {
		return fmt.Errorf("a configuration change needs configId and a version")
	}
	return nil
}

// Supersedes says whether s replaces have (nil: none kept): only a newer
// version does, so redelivered or reordered events never roll the radii back.
func (s SearchSettings) Supersedes(have *SearchSettings) bool {
	return have == nil || s.Version > have.Version
}

// InForceAt says whether s can be the configuration in force at now:
// active, and effective now or earlier.
func (s SearchSettings) InForceAt(now int64) bool { return s.IsActive && s.EffectiveDate <= now }

// InForce is the configuration in force at now among candidates: of those
// InForceAt now, the most recent effective date (then the greater id).
// FAILED_PRECONDITION when there is none (none created yet, or its event
// not here yet): no search radius.
func InForce(candidates []SearchSettings, now int64) (*SearchSettings, error) {
	var best *SearchSettings
	for i := range candidates {
		c := &candidates[i]
		if !c.InForceAt(now) {
			continue
		}
		if best == nil || c.EffectiveDate > best.EffectiveDate || c.EffectiveDate == best.EffectiveDate && c.ConfigID > best.ConfigID {
			best = c
		}
	}
	if best == nil {
		return nil, apperr.New(apperr.FailedPrecondition, "there is no active platform configuration, so no search radius: an administrator creates it (admins.platformAdmin.createInitialPlatformConfig)")
	}
	return best, nil
}

// Radius is the radius of a search: the one asked (greater than 0, at most
// the configuration's maximum), or the configuration's default.
func (s *SearchSettings) Radius(asked *float64) (float64, error) {
	if asked == nil {
		return s.DefaultSearchRadiusKm, nil
	}
	if *asked <= 0 {
		return 0, apperr.Invalid("radiusKm", "must be greater than 0")
	}
	if *asked > s.MaxSearchRadiusKm {
		return 0, apperr.Invalid("radiusKm", "must be at most %v (the platform's maxSearchRadiusKm)", s.MaxSearchRadiusKm)
	}
	return *asked, nil
}

// CheckRadius refuses a radius not greater than 0, before any configuration
// is read.
func CheckRadius(asked *float64) error {
	if asked != nil && *asked <= 0 {
		return apperr.Invalid("radiusKm", "must be greater than 0")
	}
	return nil
}

// Nearby is a store found by a search and its distance in km, to the metre.
type Nearby struct {
	Store      *Store
	DistanceKm float64
}

// Nearest are the open stores among candidates within radiusKm of (lat,
// lng), nearest first (ties by id), at most limit of them. Stores without a
// position are never found.
func Nearest(candidates []Store, lat, lng, radiusKm float64, limit int) []Nearby {
	type hit struct {
		st *Store
		km float64
	}
	hits := make([]hit, 0, len(candidates))
	for i := range candidates {
		st := &candidates[i]
		if st.Latitude == nil || st.Longitude == nil || !st.Open() {
			continue
		}
		if km := distanceKm(lat, lng, *st.Latitude, *st.Longitude); km <= radiusKm {
			hits = append(hits, hit{st, km})
		}
	}
	slices.SortFunc(hits, func(x, y hit) int { return cmp.Or(cmp.Compare(x.km, y.km), strings.Compare(x.st.ID, y.st.ID)) })
	out := make([]Nearby, 0, min(len(hits), limit))
	for _, h := range hits[:min(len(hits), limit)] {
		out = append(out, Nearby{Store: h.st, DistanceKm: roundKm(h.km)})
	}
	return out
}
