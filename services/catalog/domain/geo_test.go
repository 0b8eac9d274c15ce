package domain

import (
	"fmt"
	"math"
	"testing"
)

// destination is the point at distanceKm from (lat, lng) along bearing
// (degrees clockwise from north), on the same sphere, longitude in [-180, 180].
func destination(lat, lng, bearing, km float64) (float64, float64) {
	d, th, p1 := km/earthRadiusKm, rad(bearing), rad(lat)
	p2 := math.Asin(math.Sin(p1)*math.Cos(d) + math.Cos(p1)*math.Sin(d)*math.Cos(th))
	l2 := rad(lng) + math.Atan2(math.Sin(th)*math.Sin(d)*math.Cos(p1), math.Cos(d)-math.Sin(p1)*math.Sin(p2))
	out := deg(l2)
	for out > 180 {
		out -= 360
	}
	for out < -180 {
		out += 360
	}
	return deg(p2), out
}

// cosinesKm is the same distance by the spherical law of cosines, an
// independent formula (good to well under a metre at these distances).
func cosinesKm(lat1, lng1, lat2, lng2 float64) float64 {
	c := math.Sin(rad(lat1))*math.Sin(rad(lat2)) + math.Cos(rad(lat1))*math.Cos(rad(lat2))*math.Cos(rad(lng2-lng1))
	return earthRadiusKm * math.Acos(math.Min(1, c))
}

func (b Box) holds(lat, lng float64) bool {
	if lat < b.Lat.Min || lat > b.Lat.Max {
		return false
	}
	for _, s := range b.Lng {
		if lng >= s.Min && lng <= s.Max {
			return true
		}
	}
	return false
}

func TestDistanceKm(t *testing.T) {
	for _, c := range []struct {
		name                   string
		lat1, lng1, lat2, lng2 float64
		want, tol              float64
	}{
		{"same point", 25.2, 55.27, 25.2, 55.27, 0, 1e-9},
		{"one degree of latitude", 0, 0, 1, 0, 111.195, 0.001},
		{"one degree of longitude on the equator", 0, 0, 0, 1, 111.195, 0.001},
		{"a quarter of the equator", 0, 0, 0, 90, math.Pi / 2 * earthRadiusKm, 1e-6},
		{"pole to pole", 90, 0, -90, 0, math.Pi * earthRadiusKm, 1e-6},
		{"across the antimeridian", 0, 179.5, 0, -179.5, 111.195, 0.001},
		{"Dubai to Abu Dhabi (city centres; law of cosines)", 25.2048, 55.2708, 24.4539, 54.3773, cosinesKm(25.2048, 55.2708, 24.4539, 54.3773), 1e-6},
		{"Dubai Mall to Burj Al Arab (law of cosines)", 25.1972, 55.2744, 25.1412, 55.1853, cosinesKm(25.1972, 55.2744, 25.1412, 55.1853), 1e-6},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := distanceKm(c.lat1, c.lng1, c.lat2, c.lng2)
			if math.Abs(got-c.want) > c.tol {
				t.Fatalf("got %.6f km, want %.6f ± %g", got, c.want, c.tol)
			}
			if back := distanceKm(c.lat2, c.lng2, c.lat1, c.lng1); math.Abs(back-got) > 1e-9 {
				t.Fatalf("not symmetric: %v and %v", got, back)
			}
		})
	}
}

// TestBoundingBoxHoldsTheCircle: for centres on the equator, in the UAE, near
// and at the poles and next to the antimeridian, every point of the circle
// (sampled every degree of bearing, just inside the radius) lies in the Box,
// and the Box is tight: its latitude edges are the circle's northmost and
// southmost points, and points just outside the radius due north and south
// fall outside it.
func TestBoundingBoxHoldsTheCircle(t *testing.T) {
	centres := [][2]float64{{0, 0}, {25.2048, 55.2708}, {24.4539, 54.3773}, {-33.9, 18.4}, {89.9, 10}, {90, 0}, {-90, 0},
		{-89.95, -170}, {60, 179.9}, {-10, -179.95}, {0, 180}, {0, -180}, {89.5, 179.99}}
	for _, c := range centres {
		for _, r := range []float64{0.001, 1, 10, 50, 1000} {
			t.Run(fmt.Sprintf("%v,%v r=%v", c[0], c[1], r), func(t *testing.T) {
				b := BoundingBox(c[0], c[1], r)
				if b.Lat.Min < -90 || b.Lat.Max > 90 || len(b.Lng) == 0 || len(b.Lng) > 2 {
					t.Fatalf("malformed Box %+v", b)
				}
				for _, s := range b.Lng {
					if s.Min < -180 || s.Max > 180 || s.Min > s.Max {
						t.Fatalf("malformed longitude Span in %+v", b)
					}
				}
				for bearing := 0.0; bearing < 360; bearing++ {
					lat, lng := destination(c[0], c[1], bearing, r*0.9999)
					if distanceKm(c[0], c[1], lat, lng) > r {
						continue // the sample's own rounding at a pole put it past the radius
					}
					if !b.holds(lat, lng) {
						t.Fatalf("bearing %v: (%v, %v) at %v km is outside %+v", bearing, lat, lng, distanceKm(c[0], c[1], lat, lng), b)
					}
				}
				if c[0]+deg(r/earthRadiusKm) < 90 {
					if lat, lng := destination(c[0], c[1], 0, r*1.001); b.holds(lat, lng) {
						t.Fatalf("due north just past the radius is inside %+v", b)
					}
				}
				if c[0]-deg(r/earthRadiusKm) > -90 {
					if lat, lng := destination(c[0], c[1], 180, r*1.001); b.holds(lat, lng) {
						t.Fatalf("due south just past the radius is inside %+v", b)
					}
				}
			})
		}
	}
}

func TestBoundingBoxShapes(t *testing.T) {
	if b := BoundingBox(25.2, 55.3, 10); len(b.Lng) != 1 || b.Lng[0].Min >= 55.3 || b.Lng[0].Max <= 55.3 {
		t.Fatalf("Dubai: %+v", b)
	}
	if b := BoundingBox(0, 179.95, 50); len(b.Lng) != 2 || b.Lng[0].Max != 180 || b.Lng[1].Min != -180 {
		t.Fatalf("east of the antimeridian: %+v", b)
	}
	if b := BoundingBox(0, -179.95, 50); len(b.Lng) != 2 || b.Lng[0].Max != 180 || b.Lng[1].Min != -180 {
		t.Fatalf("west of the antimeridian: %+v", b)
	}
	if b := BoundingBox(89.9, 0, 50); len(b.Lng) != 1 || b.Lng[0] != (Span{-180, 180}) || b.Lat.Max != 90 {
		t.Fatalf("near the north pole: %+v", b)
	}
	if b := BoundingBox(-90, 0, 1); b.Lng[0] != (Span{-180, 180}) || b.Lat.Min != -90 {
		t.Fatalf("at the south pole: %+v", b)
	}
}

func TestRoundKm(t *testing.T) {
	for in, want := range map[float64]float64{0: 0, 1.23449: 1.234, 1.2345001: 1.235, 9.9999: 10} {
		if got := roundKm(in); got != want {
			t.Errorf("roundKm(%v) = %v, want %v", in, got, want)
		}
	}
}
