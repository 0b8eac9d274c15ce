package e2e

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// Store discovery: stores' locations and open flag, their changes by
// administrators and owners, listStores and searchNearby.

const (
	opUpdateStore   = "admins.catalog.updateStore"
	opUpdateMyStore = "stores.catalog.updateMyStore"
	opListStores    = "catalog.stores.listStores"
	opSearchNearby  = "catalog.stores.searchNearby"
)

// kmPerDegree is the length of a degree of a great circle on the sphere the
// search measures on (mean Earth radius 6371.0088 km).
const kmPerDegree = 6371.0088 * math.Pi / 180

// storeView is a store as getStore, listStores and searchNearby show it.
type storeView struct {
	ID                string   `json:"_id"`
	Name              string   `json:"name"`
	OwnerUserID       string   `json:"ownerUserId"`
	OwnerName         *string  `json:"ownerName"`
	OwnerPhone        *string  `json:"ownerPhone"`
	PrimaryCategoryID *string  `json:"primaryCategoryId"`
	Tier              string   `json:"tier"`
	IsOpen            bool     `json:"isOpen"`
	City              *string  `json:"city"`
	Area              *string  `json:"area"`
	Latitude          *float64 `json:"latitude"`
	Longitude         *float64 `json:"longitude"`
	DistanceKm        *float64 `json:"distanceKm"`
}

func getStoreAs(t testing.TB, s *st.Sys, token, id string) storeView {
	t.Helper()
	return okAs[storeView](t, s.Query(token, "stores.catalog.getStore", map[string]any{"storeId": id}))
}

// storeArgs are createStore's arguments for a store named name owned by owner,
// with more (key, value, ...) added.
func storeArgs(name, owner string, more ...any) map[string]any {
	m := map[string]any{"name": name, "ownerUserId": owner, "ownerName": "Owner of " + name, "ownerPhone": "+971500000000"}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i].(string)] = more[i+1]
	}
	return m
}

func nearby(t testing.TB, s *st.Sys, args map[string]any) []storeView {
	t.Helper()
	return okAs[[]storeView](t, s.Query("", opSearchNearby, args))
}

func namesOf(vs []storeView) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// east is the longitude of the point km due east of (lat, lng) on the
// search's sphere (the same latitude).
func east(lat, lng, km float64) float64 {
	d := km / kmPerDegree * math.Pi / 180
	return lng + 2*math.Asin(math.Sin(d/2)/math.Cos(lat*math.Pi/180))*180/math.Pi
}

// TestStoreLocationAndChanges: createStore takes a city, an area, a position
// and the open flag (default open) and getStore shows them; each rule between
// them is checked; administrators change any field with updateStore, owners
// their name, phone and open flag with updateMyStore, and no one else either;
// each change is published as store.updated (with a growing version), and
// the wallet's copy of the owner's contact follows it.
func TestStoreLocationAndChanges(t *testing.T) {
	s := st.Start(t)
	admin, owner, otherOwner, customer := s.Token("admin-1", "admin"), s.Token("owner-1"), s.Token("owner-2"), s.Token("user-1")
	initConfig(t, s)
	dubai, sharjah := newCity(t, s, admin, "Dubai", "دبي"), newCity(t, s, admin, "Sharjah", "الشارقة")
	marina, nahda := newArea(t, s, admin, "Dubai Marina", dubai), newArea(t, s, admin, "Al Nahda", sharjah)
	food := newCategory(t, s, admin, "Bakeries")
	okID(t, s.Mutation(customer, "customers.profile.upsertMyProfile", map[string]any{"name": "Noor"}))

	id := okID(t, s.Mutation(admin, "admins.catalog.createStore", storeArgs("Marina Bakery", "owner-1",
		"city", dubai, "area", marina, "latitude", 25.0805, "longitude", 55.1403)))
	v := getStoreAs(t, s, "", id)
	if v.City == nil || *v.City != dubai || v.Area == nil || *v.Area != marina || v.Latitude == nil || *v.Latitude != 25.0805 ||
		v.Longitude == nil || *v.Longitude != 55.1403 || !v.IsOpen {
		t.Fatalf("created store: %+v", v)
	}
	if v.OwnerName != nil || v.OwnerPhone != nil {
		t.Errorf("anonymous callers see the owner's contact: %+v", v)
	}
	plain := okAs[map[string]any](t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": newStore(t, s, admin, "Plain", "owner-9", "", "")}))
	requireKeys(t, "a store without location", plain, "city", "area", "latitude", "longitude", "isOpen")
	if plain["city"] != nil || plain["area"] != nil || plain["latitude"] != nil || plain["longitude"] != nil || plain["isOpen"] != true {
		t.Errorf("a store without location: %v", plain)
	}
	closed := okID(t, s.Mutation(admin, "admins.catalog.createStore", storeArgs("Night Shop", "owner-2", "isOpen", false, "city", sharjah)))
	if v := getStoreAs(t, s, "", closed); v.IsOpen || v.City == nil || *v.City != sharjah || v.Area != nil {
		t.Errorf("created closed: %+v", v)
	}

	t.Run("createStore refuses", func(t *testing.T) {
		for _, c := range []struct {
			name, code, field string
			more              []any
		}{
			{"latitude above 90", "INVALID_ARGUMENT", "latitude", []any{"latitude", 90.5, "longitude", 55}},
			{"latitude below -90", "INVALID_ARGUMENT", "latitude", []any{"latitude", -91, "longitude", 55}},
			{"longitude above 180", "INVALID_ARGUMENT", "longitude", []any{"latitude", 25, "longitude", 180.01}},
			{"longitude below -180", "INVALID_ARGUMENT", "longitude", []any{"latitude", 25, "longitude", -200}},
			{"latitude as text", "INVALID_ARGUMENT", "latitude", []any{"latitude", "25.2", "longitude", 55}},
			{"latitude without longitude", "INVALID_ARGUMENT", "longitude", []any{"latitude", 25}},
			{"longitude without latitude", "INVALID_ARGUMENT", "latitude", []any{"longitude", 55}},
			{"an area without its city", "INVALID_ARGUMENT", "area", []any{"area", marina}},
			{"an area of another city", "INVALID_ARGUMENT", "area", []any{"city", sharjah, "area", marina}},
			{"a city id that is an area's", "INVALID_ARGUMENT", "city", []any{"city", marina}},
			{"isOpen not a boolean", "INVALID_ARGUMENT", "isOpen", []any{"isOpen", "yes"}},
			{"a missing city", "NOT_FOUND", "", []any{"city", missingLike(dubai)}},
			{"a missing area", "NOT_FOUND", "", []any{"city", dubai, "area", missingLike(marina)}},
		} {
			t.Run(c.name, func(t *testing.T) {
				var has []string
				if c.field != "" {
					has = append(has, c.field)
				}
				expectError(t, s.Mutation(admin, "admins.catalog.createStore", storeArgs("Refused", "owner-3", c.more...)), c.code, has...)
			})
		}
		var found []storeView
		page := okAs[struct {
			Page []storeView `json:"page"`
		}](t, s.Query("", opListStores, map[string]any{"paginationOpts": map[string]any{"numItems": 100}}))
		for _, v := range page.Page {
			if v.Name == "Refused" {
				found = append(found, v)
			}
		}
		if len(found) > 0 {
			t.Fatalf("a refused store was created: %+v", found)
		}
	})

	t.Run("administrators change any field", func(t *testing.T) {
		v := okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": id, "name": "  Marina Bakery & Cafe ",
			"ownerPhone": "+971500000001", "tier": "premium", "primaryCategoryId": food, "latitude": 25.0810, "isOpen": false}))
		if v.Name != "Marina Bakery & Cafe" || v.OwnerPhone == nil || *v.OwnerPhone != "+971500000001" || v.Tier != "premium" ||
			v.PrimaryCategoryID == nil || *v.PrimaryCategoryID != food || *v.Latitude != 25.0810 || *v.Longitude != 55.1403 || v.IsOpen ||
			*v.City != dubai || *v.Area != marina {
			t.Fatalf("after updateStore: %+v", v)
		}
		if got := getStoreAs(t, s, owner, id); got.Name != v.Name || got.IsOpen || got.OwnerPhone == nil || *got.OwnerPhone != "+971500000001" {
			t.Fatalf("getStore after updateStore: %+v", got)
		}
		// Moving to another city needs an area of that city (or none given: the
		// old one is not in it).
		expectError(t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": id, "city": sharjah}), "INVALID_ARGUMENT", "area")
		v = okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": id, "city": sharjah, "area": nahda,
			"latitude": 25.3050, "longitude": 55.3720}))
		if *v.City != sharjah || *v.Area != nahda || *v.Latitude != 25.3050 || *v.Longitude != 55.3720 {
			t.Fatalf("moved: %+v", v)
		}
		for _, c := range []struct {
			name, code, field string
			args              map[string]any
		}{
			{"a missing store", "NOT_FOUND", "", map[string]any{"storeId": missingLike(id), "name": "X"}},
			{"a missing category", "NOT_FOUND", "", map[string]any{"storeId": id, "primaryCategoryId": missingLike(food)}},
			{"an area of another city", "INVALID_ARGUMENT", "area", map[string]any{"storeId": id, "area": marina}},
			{"latitude out of range", "INVALID_ARGUMENT", "latitude", map[string]any{"storeId": id, "latitude": 100}},
			{"a blank name", "INVALID_ARGUMENT", "name", map[string]any{"storeId": id, "name": "  "}},
			{"an unknown tier", "INVALID_ARGUMENT", "tier", map[string]any{"storeId": id, "tier": "gold"}},
			{"an unknown argument", "INVALID_ARGUMENT", "isActive", map[string]any{"storeId": id, "isActive": false}},
			{"no storeId", "INVALID_ARGUMENT", "storeId", map[string]any{"name": "X"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				var has []string
				if c.field != "" {
					has = append(has, c.field)
				}
				expectError(t, s.Mutation(admin, opUpdateStore, c.args), c.code, has...)
			})
		}
		if got := getStoreAs(t, s, admin, id); got.Name != "Marina Bakery & Cafe" || *got.Area != nahda || got.Tier != "premium" {
			t.Fatalf("a refused update changed the store: %+v", got)
		}
		// No one else may.
		for _, tok := range []string{owner, otherOwner, customer} {
			expectError(t, s.Mutation(tok, opUpdateStore, map[string]any{"storeId": id, "name": "Taken"}), "PERMISSION_DENIED")
		}
		expectError(t, s.Mutation("", opUpdateStore, map[string]any{"storeId": id, "name": "Taken"}), "UNAUTHENTICATED")
	})

	t.Run("owners change their name, phone and open flag", func(t *testing.T) {
		v := okAs[storeView](t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": id, "name": "Nahda Bakery", "ownerPhone": "+971500000002", "isOpen": true}))
		if v.Name != "Nahda Bakery" || *v.OwnerPhone != "+971500000002" || !v.IsOpen || v.Tier != "premium" || *v.Area != nahda {
			t.Fatalf("after updateMyStore: %+v", v)
		}
		v = okAs[storeView](t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": id, "isOpen": false}))
		if v.IsOpen || v.Name != "Nahda Bakery" {
			t.Fatalf("closed by its owner: %+v", v)
		}
		// Only the store's owner: not another owner, a customer, nor an
		// administrator who does not own it (they have updateStore).
		for _, tok := range []string{otherOwner, customer, admin} {
			expectError(t, s.Mutation(tok, opUpdateMyStore, map[string]any{"storeId": id, "isOpen": true}), "PERMISSION_DENIED")
		}
		expectError(t, s.Mutation("", opUpdateMyStore, map[string]any{"storeId": id, "isOpen": true}), "UNAUTHENTICATED")
		// The fields that are the platform's are not the owner's.
		for _, k := range []string{"tier", "ownerUserId", "city", "latitude", "primaryCategoryId"} {
			expectError(t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": id, k: "x"}), "INVALID_ARGUMENT", k)
		}
		expectError(t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": missingLike(id), "isOpen": true}), "NOT_FOUND")
		expectError(t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": id, "ownerPhone": ""}), "INVALID_ARGUMENT", "ownerPhone")
		if got := getStoreAs(t, s, owner, id); got.IsOpen || got.Name != "Nahda Bakery" {
			t.Fatalf("refused updates changed the store: %+v", got)
		}
	})

	t.Run("a store handed to another owner", func(t *testing.T) {
		v := okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": id, "ownerUserId": "owner-2", "ownerName": "Omar"}))
		if v.OwnerUserID != "owner-2" || *v.OwnerName != "Omar" {
			t.Fatalf("handed over: %+v", v)
		}
		expectError(t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": id, "isOpen": true}), "PERMISSION_DENIED")
		if v := okAs[storeView](t, s.Mutation(otherOwner, opUpdateMyStore, map[string]any{"storeId": id, "isOpen": true})); !v.IsOpen {
			t.Fatalf("opened by its new owner: %+v", v)
		}
	})

	t.Run("each change is published as store.updated", func(t *testing.T) {
		raw := findEvent(t, s.Brokers, "catalog", id, func(e events.Envelope) bool {
			return e.Type == "store.updated" && strings.Contains(string(e.Data), `"ownerUserId":"owner-2"`) && strings.Contains(string(e.Data), `"isOpen":true`)
		})
		env, err := events.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			StoreID, Name, OwnerUserID, OwnerName, OwnerPhone, Tier, City, Area string
			Latitude, Longitude                                                 float64
			IsOpen                                                              bool
			Version                                                             int
		}
		if err := json.Unmarshal(env.Data, &d); err != nil {
			t.Fatal(err)
		}
		// created (1), updateStore x2, updateMyStore x2, handed over, reopened: 7.
		if d.StoreID != id || d.Name != "Nahda Bakery" || d.OwnerName != "Omar" || d.OwnerPhone != "+971500000002" || d.Tier != "premium" ||
			d.City != sharjah || d.Area != nahda || d.Latitude != 25.3050 || d.Longitude != 55.3720 || !d.IsOpen || d.Version != 7 {
			t.Fatalf("store.updated: %s", env.Data)
		}
	})

	t.Run("the wallet's copy of the owner follows", func(t *testing.T) {
		owner2 := otherOwner
		wallet := okAs[map[string]any](t, s.Query(owner2, "stores.wallet.getWallet", map[string]any{"storeId": id}))["_id"].(string)
		st.MustOK(t, s.Mutation(admin, "admins.payoutOperations.adjustWalletBalance", map[string]any{"storeId": id, "walletId": wallet,
			"adjustmentType": "add_balance", "amount": 500, "reason": "Opening credit", "adminUserId": "admin-1"}))
		okID(t, s.Mutation(owner2, "stores.payouts.requestPayout", map[string]any{"storeId": id, "amount": 200,
			"bankDetails": map[string]any{"IBAN": validIBAN, "bankName": "Bank", "accountHolderName": "Omar"}}))
		okAs[storeView](t, s.Mutation(owner2, opUpdateMyStore, map[string]any{"storeId": id, "ownerPhone": "+971500000003"}))
		eventually(t, "the payout shows the owner's new phone", func() bool {
			items := okAs[[]map[string]any](t, s.Query(admin, "admins.payoutOperations.getPendingPayouts", map[string]any{"storeId": id}))
			return len(items) == 1 && items[0]["storeOwnerPhone"] == "+971500000003" && items[0]["storeOwnerName"] == "Omar"
		})
	})
}

// TestSearchNearby: open stores within the radius, nearest first with their
// distance; the radius defaults to the configuration's default and may not
// pass its maximum (both followed when an administrator changes them); closed
// stores and stores without a position are left out; every bad argument is
// INVALID_ARGUMENT; the poles and the antimeridian answer like anywhere else.
func TestSearchNearby(t *testing.T) {
	s := st.Start(t)
	admin, owner := s.Token("admin-1", "admin"), s.Token("owner-1")
	const lat, lng = 25.2048, 55.2708 // Dubai
	at := func(t *testing.T, name string, more ...any) string {
		t.Helper()
		return okID(t, s.Mutation(admin, "admins.catalog.createStore", storeArgs(name, "owner-1", more...)))
	}
	north := func(km float64) float64 { return lat + km/kmPerDegree }
	// Before any configuration there is no radius.
	expectError(t, s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng}), "FAILED_PRECONDITION")
	// Bad arguments are refused first, configuration or not.
	expectError(t, s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng, "radiusKm": 0}), "INVALID_ARGUMENT", "radiusKm")

	cfg := initConfig(t, s) // default 10 km, maximum 50 km
	want := map[string]float64{}
	add := func(name string, km float64, more ...any) string {
		want[name] = km
		return at(t, name, more...)
	}
	add("N1", 1, "latitude", north(1), "longitude", lng)
	add("S3", 3, "latitude", north(-3), "longitude", lng)
	tieA := add("W5 a", 5, "latitude", lat, "longitude", east(lat, lng, -5))
	tieB := add("W5 b", 5, "latitude", lat, "longitude", east(lat, lng, -5))
	add("E8", 8, "latitude", lat, "longitude", east(lat, lng, 8))
	closed := add("N2 closed", 2, "latitude", north(2), "longitude", lng, "isOpen", false)
	add("N12", 12, "latitude", north(12), "longitude", lng)
	far := add("S30", 30, "latitude", north(-30), "longitude", lng)
	add("N60", 60, "latitude", north(60), "longitude", lng)
	at(t, "Nowhere") // no position: never found
	ties := []string{"W5 a", "W5 b"}
	if tieB < tieA {
		ties = []string{"W5 b", "W5 a"}
	}

	search := func(t *testing.T, more ...any) []storeView {
		t.Helper()
		args := map[string]any{"latitude": lat, "longitude": lng}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		got := nearby(t, s, args)
		for _, v := range got {
			if v.DistanceKm == nil || math.Abs(*v.DistanceKm-want[v.Name]) > 0.002 {
				t.Errorf("%s: distanceKm %v, want %v", v.Name, v.DistanceKm, want[v.Name])
			}
			if !v.IsOpen || v.OwnerName != nil || v.OwnerPhone != nil {
				t.Errorf("%s: %+v", v.Name, v)
			}
		}
		return got
	}
	expect := func(t *testing.T, got []storeView, names ...string) {
		t.Helper()
		if !slices.Equal(namesOf(got), names) {
			t.Fatalf("found %v, want %v", namesOf(got), names)
		}
	}
	within10 := append(append([]string{"N1", "S3"}, ties...), "E8")

	t.Run("the default radius and the maximum", func(t *testing.T) {
		eventually(t, "the catalog hears of the configuration", func() bool {
			return s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng}).Status == 200
		})
		expect(t, search(t), within10...)
		expect(t, search(t, "radiusKm", 10), within10...)
		expect(t, search(t, "radiusKm", 2.5), "N1")
		expect(t, search(t, "radiusKm", 40), append(slices.Clone(within10), "N12", "S30")...)
		expect(t, search(t, "radiusKm", 50), append(slices.Clone(within10), "N12", "S30")...)
		expectError(t, s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng, "radiusKm": 50.01}), "INVALID_ARGUMENT", "radiusKm", "50")
	})

	t.Run("every bad argument", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"radius 0", map[string]any{"latitude": lat, "longitude": lng, "radiusKm": 0}, "radiusKm"},
			{"negative radius", map[string]any{"latitude": lat, "longitude": lng, "radiusKm": -1}, "radiusKm"},
			{"radius as text", map[string]any{"latitude": lat, "longitude": lng, "radiusKm": "5"}, "radiusKm"},
			{"latitude above 90", map[string]any{"latitude": 90.1, "longitude": lng}, "latitude"},
			{"latitude below -90", map[string]any{"latitude": -90.1, "longitude": lng}, "latitude"},
			{"longitude above 180", map[string]any{"latitude": lat, "longitude": 180.5}, "longitude"},
			{"longitude below -180", map[string]any{"latitude": lat, "longitude": -181}, "longitude"},
			{"no latitude", map[string]any{"longitude": lng}, "latitude"},
			{"no longitude", map[string]any{"latitude": lat}, "longitude"},
			{"latitude as text", map[string]any{"latitude": "25.2", "longitude": lng}, "latitude"},
			{"an unknown argument", map[string]any{"latitude": lat, "longitude": lng, "limit": 5}, "limit"},
		} {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Query("", opSearchNearby, c.args), "INVALID_ARGUMENT", c.field)
			})
		}
	})

	t.Run("open and closed", func(t *testing.T) {
		okAs[storeView](t, s.Mutation(owner, opUpdateMyStore, map[string]any{"storeId": closed, "isOpen": true}))
		expect(t, search(t), append([]string{"N1", "N2 closed", "S3"}, append(slices.Clone(ties), "E8")...)...)
		okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": closed, "isOpen": false}))
		expect(t, search(t), within10...)
	})

	t.Run("a store moved is found where it is", func(t *testing.T) {
		okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": far, "latitude": north(-4)}))
		want["S30"] = 4
		expect(t, search(t), append([]string{"N1", "S3", "S30"}, append(slices.Clone(ties), "E8")...)...)
		okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": far, "latitude": north(-30)}))
		want["S30"] = 30
		expect(t, search(t), within10...)
	})

	t.Run("the radii follow the configuration", func(t *testing.T) {
		update := func(l map[string]any) {
			st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg, "locationSettings": l}))
		}
		update(map[string]any{"defaultSearchRadiusKm": 35})
		eventually(t, "the new default radius", func() bool { return len(search(t)) == len(within10)+2 })
		expect(t, search(t), append(slices.Clone(within10), "N12", "S30")...)
		update(map[string]any{"defaultSearchRadiusKm": 15, "maxSearchRadiusKm": 20})
		eventually(t, "the new maximum", func() bool {
			return s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng, "radiusKm": 30}).Code() == "INVALID_ARGUMENT"
		})
		expectError(t, s.Query("", opSearchNearby, map[string]any{"latitude": lat, "longitude": lng, "radiusKm": 20.5}), "INVALID_ARGUMENT", "radiusKm", "20")
		expect(t, search(t), append(slices.Clone(within10), "N12")...)
		expect(t, search(t, "radiusKm", 20), append(slices.Clone(within10), "N12")...)
	})

	t.Run("the poles and the antimeridian", func(t *testing.T) {
		at(t, "Polar Station", "latitude", 89.99, "longitude", -45)
		at(t, "Dateline Kiosk", "latitude", -16.5, "longitude", 179.99)
		for _, c := range []struct {
			lat, lng float64
			want     []string
		}{
			{90, 0, []string{"Polar Station"}}, {90, 180, []string{"Polar Station"}}, {89.995, 135, []string{"Polar Station"}},
			{-90, 0, nil}, {-90, -180, nil},
			{-16.5, -179.99, []string{"Dateline Kiosk"}}, {-16.5, 180, []string{"Dateline Kiosk"}}, {-16.5, -180, []string{"Dateline Kiosk"}},
			{0, 180, nil},
		} {
			got := nearby(t, s, map[string]any{"latitude": c.lat, "longitude": c.lng, "radiusKm": 5})
			if !slices.Equal(namesOf(got), c.want) {
				t.Errorf("at (%v, %v): %v, want %v", c.lat, c.lng, namesOf(got), c.want)
			}
		}
	})
}

// TestListStores: stores by name (case aside), each filter alone and
// combined, pages that walk the whole list once, closed stores listed as
// closed, a renamed store in its new place, and the filter errors.
func TestListStores(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	dubai, sharjah := newCity(t, s, admin, "Dubai", "دبي"), newCity(t, s, admin, "Sharjah", "الشارقة")
	marina, deira := newArea(t, s, admin, "Dubai Marina", dubai), newArea(t, s, admin, "Deira", dubai)
	nahda := newArea(t, s, admin, "Al Nahda", sharjah)
	food, flowers := newCategory(t, s, admin, "Food"), newCategory(t, s, admin, "Flowers")
	type spec struct {
		name, cat, city, area string
		open                  bool
	}
	specs := []spec{
		{"bakery One", food, dubai, marina, true}, {"Apple Grocer", food, dubai, deira, true}, {"Cactus Flowers", flowers, dubai, marina, false},
		{"delta Roses", flowers, sharjah, nahda, true}, {"Eat Here", food, sharjah, "", true}, {"Fig Tree", "", "", "", true},
		{"Bakery Two", food, dubai, marina, true},
	}
	storeIDs := map[string]string{}
	for _, sp := range specs {
		more := []any{"isOpen", sp.open}
		if sp.cat != "" {
			more = append(more, "primaryCategoryId", sp.cat)
		}
		if sp.city != "" {
			more = append(more, "city", sp.city)
		}
		if sp.area != "" {
			more = append(more, "area", sp.area)
		}
		storeIDs[sp.name] = okID(t, s.Mutation(admin, "admins.catalog.createStore", storeArgs(sp.name, "owner-1", more...)))
	}
	type pageOf struct {
		Page           []storeView `json:"page"`
		IsDone         bool        `json:"isDone"`
		ContinueCursor string      `json:"continueCursor"`
	}
	// all walks every page of a listing n at a time.
	all := func(t *testing.T, filter map[string]any, n int) []string {
		t.Helper()
		var names []string
		cursor := any(nil)
		for range 20 {
			args := map[string]any{"paginationOpts": map[string]any{"numItems": n, "cursor": cursor}}
			for k, v := range filter {
				args[k] = v
			}
			p := okAs[pageOf](t, s.Query("", opListStores, args))
			if len(p.Page) > n {
				t.Fatalf("page of %d for numItems %d", len(p.Page), n)
			}
			for _, v := range p.Page {
				names = append(names, v.Name)
				if v.OwnerName != nil || v.OwnerPhone != nil {
					t.Errorf("anonymous callers see the owner's contact: %+v", v)
				}
			}
			if p.IsDone {
				return names
			}
			cursor = p.ContinueCursor
		}
		t.Fatal("the listing never ends")
		return nil
	}
	for _, c := range []struct {
		name   string
		filter map[string]any
		want   []string
	}{
		{"every store, by name", nil, []string{"Apple Grocer", "bakery One", "Bakery Two", "Cactus Flowers", "delta Roses", "Eat Here", "Fig Tree"}},
		{"a category", map[string]any{"categoryId": food}, []string{"Apple Grocer", "bakery One", "Bakery Two", "Eat Here"}},
		{"a city", map[string]any{"city": sharjah}, []string{"delta Roses", "Eat Here"}},
		{"an area", map[string]any{"area": marina}, []string{"bakery One", "Bakery Two", "Cactus Flowers"}},
		{"a city and its area", map[string]any{"city": dubai, "area": deira}, []string{"Apple Grocer"}},
		{"a city and a category", map[string]any{"city": dubai, "categoryId": flowers}, []string{"Cactus Flowers"}},
		{"an area and a category", map[string]any{"area": marina, "categoryId": food}, []string{"bakery One", "Bakery Two"}},
		{"nothing matches", map[string]any{"area": deira, "categoryId": flowers}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 100} {
				if got := all(t, c.filter, n); !slices.Equal(got, c.want) {
					t.Fatalf("%d per page: %v, want %v", n, got, c.want)
				}
			}
		})
	}

	t.Run("closed stores are listed, as closed", func(t *testing.T) {
		p := okAs[pageOf](t, s.Query("", opListStores, map[string]any{"area": marina, "paginationOpts": map[string]any{"numItems": 10}}))
		for _, v := range p.Page {
			if v.IsOpen != (v.Name != "Cactus Flowers") {
				t.Errorf("%s: isOpen %v", v.Name, v.IsOpen)
			}
		}
	})

	t.Run("a renamed store moves", func(t *testing.T) {
		okAs[storeView](t, s.Mutation(admin, opUpdateStore, map[string]any{"storeId": storeIDs["Fig Tree"], "name": "Aardvark Deli"}))
		if got := all(t, nil, 3); !slices.Equal(got, []string{"Aardvark Deli", "Apple Grocer", "bakery One", "Bakery Two", "Cactus Flowers", "delta Roses", "Eat Here"}) {
			t.Fatalf("after the rename: %v", got)
		}
	})

	t.Run("filter errors", func(t *testing.T) {
		pg := map[string]any{"numItems": 10}
		for _, c := range []struct {
			name, code, field string
			args              map[string]any
		}{
			{"a missing category", "NOT_FOUND", "", map[string]any{"categoryId": missingLike(food), "paginationOpts": pg}},
			{"a missing city", "NOT_FOUND", "", map[string]any{"city": missingLike(dubai), "paginationOpts": pg}},
			{"a missing area", "NOT_FOUND", "", map[string]any{"area": missingLike(marina), "paginationOpts": pg}},
			{"an area outside the city", "INVALID_ARGUMENT", "area", map[string]any{"city": sharjah, "area": marina, "paginationOpts": pg}},
			{"a malformed city", "INVALID_ARGUMENT", "city", map[string]any{"city": "Dubai", "paginationOpts": pg}},
			{"an area id as category", "INVALID_ARGUMENT", "categoryId", map[string]any{"categoryId": marina, "paginationOpts": pg}},
			{"no paginationOpts", "INVALID_ARGUMENT", "paginationOpts", map[string]any{}},
			{"numItems 0", "INVALID_ARGUMENT", "numItems", map[string]any{"paginationOpts": map[string]any{"numItems": 0}}},
			{"a cursor of another query", "INVALID_ARGUMENT", "cursor", map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": "bm9wZQ"}}},
		} {
			t.Run(c.name, func(t *testing.T) {
				var has []string
				if c.field != "" {
					has = append(has, c.field)
				}
				expectError(t, s.Query("", opListStores, c.args), c.code, has...)
			})
		}
	})
}
