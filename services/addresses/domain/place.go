package domain

import "marketplace/libs/apperr"

// Place is a city or an area of the catalog as the addresses service's
// projection keeps it (places), with the catalog's version of it.
type Place struct {
	ID         string `bson:"_id"`
	Kind       string `bson:"kind"`
	Name       string `bson:"name"`
	NameArabic string `bson:"nameArabic,omitempty"`
	City       string `bson:"city,omitempty"`
	Version    int64  `bson:"version"`
}

// Supersedes says whether p replaces have (nil: none kept): only a newer
// version does, so a redelivered or reordered event never rolls a name back.
func (p Place) Supersedes(have *Place) bool {
	return have == nil || p.Version > have.Version
}

// CheckPlace checks an address's city and area against the catalog's
// answer (cities and areas by id): both exist, and the area lies in the city.
func CheckPlace(cities, areas map[string]Place, city, area string) error {
	if _, ok := cities[city]; !ok {
		return apperr.New(apperr.NotFound, "city %s does not exist", city)
	}
	a, ok := areas[area]
	if !ok {
		return apperr.New(apperr.NotFound, "area %s does not exist", area)
	}
	if a.City != city {
		return apperr.Invalid("area", "%s lies in another city than %s", area, city)
	}
	return nil
}
