package domain

import "math"

// Store search by distance, without geo operators (the embedded engine has
// none): a query for the stores inside a latitude/longitude box that holds the
// search circle, served by an index on the two fields, then the exact
// great-circle distance of each candidate, keeping those within the radius.

// earthRadiusKm is the mean Earth radius (IUGG), the sphere the distances use.
const earthRadiusKm = 6371.0088

func rad(deg float64) float64 { return deg * math.Pi / 180 }
func deg(rad float64) float64 { return rad * 180 / math.Pi }

// distanceKm is the great-circle distance between two points in decimal
// degrees (haversine; exact on the sphere, within 0.5 % of the ellipsoid).
func distanceKm(lat1, lng1, lat2, lng2 float64) float64 {
	dLat, dLng := rad(lat2-lat1), rad(lng2-lng1)
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(rad(lat1))*math.Cos(rad(lat2))*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusKm * math.Asin(math.Sqrt(math.Min(1, h)))
}

// Span is an inclusive range of degrees.
type Span struct{ Min, Max float64 }

// Box is a latitude range and one or two longitude ranges (two when it
// crosses the antimeridian) that hold every point within a distance of a
// centre.
type Box struct {
	Lat Span
	Lng []Span
}

// BoundingBox is the smallest such box for the circle of radiusKm around
// (lat, lng) (J. P. Matuschek's construction on the sphere). A circle that
// reaches a pole holds every longitude near it, so its box spans all
// longitudes; one that crosses the antimeridian gets its two sides.
func BoundingBox(lat, lng, radiusKm float64) Box {
	d := radiusKm / earthRadiusKm // angular radius
	latMin, latMax := lat-deg(d), lat+deg(d)
	if latMax >= 90 || latMin <= -90 || d >= math.Pi/2 {
		return Box{Lat: Span{math.Max(latMin, -90), math.Min(latMax, 90)}, Lng: []Span{{-180, 180}}}
	}
	// The widest longitude of the circle, reached north or south of its centre.
	s := math.Sin(d) / math.Cos(rad(lat))
	if s >= 1 {
		return Box{Lat: Span{latMin, latMax}, Lng: []Span{{-180, 180}}}
	}
	dLng := deg(math.Asin(s))
	lo, hi := lng-dLng, lng+dLng
	b := Box{Lat: Span{latMin, latMax}}
	switch {
	case lo < -180:
		b.Lng = []Span{{lo + 360, 180}, {-180, hi}}
	case hi > 180:
		b.Lng = []Span{{lo, 180}, {-180, hi - 360}}
	default:
		b.Lng = []Span{{lo, hi}}
	}
	return b
}

// roundKm rounds a distance to the metre, as answers show it.
func roundKm(km float64) float64 { return math.Round(km*1000) / 1000 }
