package domain

import (
	"strconv"
	"strings"

	"marketplace/libs/apperr"
)

// MaxAddresses is how many addresses one customer may keep.
const MaxAddresses = 20

// example is a coordinate of Dubai, shown by a refusal.
var example = map[string]string{"latitude": "25.2048", "longitude": "55.2708"}

// CheckCoordinates checks an address's latitude and longitude (each
// optional): decimal degrees within 90 and 180.
func CheckCoordinates(latitude, longitude *string) error {
	if err := CheckCoordinate("latitude", latitude, 90); err != nil {
		return err
	}
	return CheckCoordinate("longitude", longitude, 180)
}

// CheckCoordinate accepts a latitude or longitude given as text when it is a
// decimal number within limit degrees.
func CheckCoordinate(field string, v *string, limit float64) error {
	if v == nil {
		return nil
	}
	s := strings.TrimSpace(*v)
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || s == "" || strings.ContainsAny(s, "eExXnNiI") {
		return apperr.Invalid(field, "must be a decimal number of degrees in a string, such as %q", example[field])
	}
	if x < -limit || x > limit {
		return apperr.Invalid(field, "must be between -%v and %v", limit, limit)
	}
	return nil
}

// Successor picks the address that becomes the default when the default is
// deleted or deactivated: the most recently created other active address, or
// none. The most recent is the latest creationTime (ids are random), the
// greater id among addresses created in the same millisecond.
func Successor(candidates []Address, leaving string) string {
	var best *Address
	for i := range candidates {
		c := &candidates[i]
		if c.ID == leaving || !c.IsActive {
			continue
		}
		if best == nil || c.CreationTime > best.CreationTime || c.CreationTime == best.CreationTime && c.ID > best.ID {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	return best.ID
}
