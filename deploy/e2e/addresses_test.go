package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// Tests of the addresses service (interface document 2.5, 3.4, 4.3, 5.3, 7.2;
// issue 3): every operation, its errors, the single default, ownership and the cap.

const (
	opCreateAddress = "customers.addresses.createAddress"
	opUpdateAddress = "customers.addresses.updateAddress"
	opDeleteAddress = "customers.addresses.deleteAddress"
	opListAddresses = "customers.addresses.getCustomerAddresses"
	opGetAddress    = "customers.addresses.getAddress"
	opSetDefault    = "customers.addresses.setDefaultAddress"

	maxAddresses = 20 // the documented cap per customer
)

type addressView struct {
	ID                 string    `json:"_id"`
	CreationTime       int64     `json:"_creationTime"`
	CustomerID         string    `json:"customerId"`
	Name               string    `json:"name"`
	FullAddress        string    `json:"fullAddress"`
	City               *cityView `json:"city"`
	Area               *areaView `json:"area"`
	FlatVilaNumber     *string   `json:"flatVilaNumber"`
	BuildingNameNumber *string   `json:"buildingNameNumber"`
	Landmark           *string   `json:"landmark"`
	Latitude           *string   `json:"latitude"`
	Longitude          *string   `json:"longitude"`
	IsDefault          bool      `json:"isDefault"`
	IsActive           bool      `json:"isActive"`
}

func (a addressView) String() string {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	return fmt.Sprintf("{%s %s %q %q city=%+v area=%+v flat=%s bld=%s lm=%s lat=%s lng=%s default=%v active=%v t=%d}",
		a.ID, a.CustomerID, a.Name, a.FullAddress, a.City, a.Area, s(a.FlatVilaNumber), s(a.BuildingNameNumber),
		s(a.Landmark), s(a.Latitude), s(a.Longitude), a.IsDefault, a.IsActive, a.CreationTime)
}

// places is the reference data the address tests use: Dubai with two areas and
// Sharjah with one.
type places struct {
	dubai, sharjah       cityView
	marina, deira, nahda areaView
	admin                string
}

func newPlaces(t testing.TB, s *st.Sys) places {
	t.Helper()
	p := places{admin: s.Token("admin-1", "admin")}
	p.dubai = cityView{newCity(t, s, p.admin, "Dubai", "دبي"), "Dubai", "دبي"}
	p.sharjah = cityView{newCity(t, s, p.admin, "Sharjah", "الشارقة"), "Sharjah", "الشارقة"}
	p.marina = areaView{newArea(t, s, p.admin, "Marina", p.dubai.ID), "Marina", p.dubai.ID}
	p.deira = areaView{newArea(t, s, p.admin, "Deira", p.dubai.ID), "Deira", p.dubai.ID}
	p.nahda = areaView{newArea(t, s, p.admin, "Al Nahda", p.sharjah.ID), "Al Nahda", p.sharjah.ID}
	return p
}

// newCustomer is a user with a customer profile: their token and customer id.
func newCustomer(t testing.TB, s *st.Sys, sub string) (token, customerID string) {
	t.Helper()
	token = s.Token(sub)
	return token, newProfile(t, s, token, "Customer "+sub)
}

// addrArgs are the required arguments of createAddress, in Dubai Marina.
func (p places) addrArgs(customerID, name string) map[string]any {
	return map[string]any{"customerId": customerID, "name": name, "fullAddress": name + ", Marina Walk, Dubai", "city": p.dubai.ID, "area": p.marina.ID}
}

func createAddr(t testing.TB, s *st.Sys, token string, args map[string]any) string {
	t.Helper()
	id := okID(t, s.Mutation(token, opCreateAddress, args))
	if !strings.HasPrefix(id, "adr_") {
		t.Fatalf("address id %q is not a customerAddresses id", id)
	}
	return id
}

// listAddrs is getCustomerAddresses of the caller, after checking no item carries customerId.
func listAddrs(t testing.TB, s *st.Sys, token string) []addressView {
	t.Helper()
	r := s.Query(token, opListAddresses, nil)
	for _, m := range okAs[[]map[string]any](t, r) {
		if _, ok := m["customerId"]; ok {
			t.Errorf("getCustomerAddresses item carries customerId: %v", m)
		}
	}
	return okAs[[]addressView](t, r)
}

func getAddr(t testing.TB, s *st.Sys, token, id string) *addressView {
	t.Helper()
	return okAs[*addressView](t, s.Query(token, opGetAddress, map[string]any{"addressId": id}))
}

// idsOf lists the ids in order.
func idsOf(as []addressView) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

// expectList checks getCustomerAddresses: exactly these ids in this order, and
// only the first is the default when wantDefault.
func expectList(t testing.TB, s *st.Sys, token string, wantDefault bool, want ...string) {
	t.Helper()
	got := listAddrs(t, s, token)
	if strings.Join(idsOf(got), ",") != strings.Join(want, ",") {
		t.Fatalf("addresses in order:\n got %v\nwant %v", idsOf(got), want)
	}
	for i, a := range got {
		if a.IsDefault != (wantDefault && i == 0) || !a.IsActive {
			t.Errorf("address %d (%s): isDefault %v isActive %v (a default expected first: %v)", i, a.ID, a.IsDefault, a.IsActive, wantDefault)
		}
	}
}

func isNull(t testing.TB, r st.Result) {
	t.Helper()
	st.MustOK(t, r)
	if strings.TrimSpace(string(r.Body)) != "null" {
		t.Errorf("want null, got %s", r.Body)
	}
}

// TestAddressesAccess: every operation needs a token; a user without a profile
// cannot create; a user manages only their own customer's addresses.
func TestAddressesAccess(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	alice, aliceCus := newCustomer(t, s, "user-alice")
	bob, bobCus := newCustomer(t, s, "user-bob")
	nobody := s.Token("user-nobody")
	aHome := createAddr(t, s, alice, p.addrArgs(aliceCus, "Home"))
	aWork := createAddr(t, s, alice, p.addrArgs(aliceCus, "Work"))
	bHome := createAddr(t, s, bob, p.addrArgs(bobCus, "Bob Home"))
	before := *getAddr(t, s, alice, aHome)

	t.Run("every operation needs a token", func(t *testing.T) {
		calls := []opCall{
			{"mutation", opCreateAddress, p.addrArgs(aliceCus, "Anon")},
			{"mutation", opUpdateAddress, map[string]any{"addressId": aHome, "name": "Anon"}},
			{"mutation", opDeleteAddress, map[string]any{"addressId": aHome}},
			{"query", opListAddresses, nil},
			{"query", opListAddresses, map[string]any{"customerId": aliceCus}},
			{"query", opGetAddress, map[string]any{"addressId": aHome}},
			{"mutation", opSetDefault, map[string]any{"addressId": aWork}},
		}
		expectAllNeedToken(t, s, calls)
		expectList(t, s, alice, true, aHome, aWork)
	})

	t.Run("a user without a profile cannot create", func(t *testing.T) {
		expectError(t, s.Mutation(nobody, opCreateAddress, p.addrArgs(aliceCus, "Mine")), "FAILED_PRECONDITION")
		expectError(t, s.Mutation(nobody, opCreateAddress, p.addrArgs(missingLike(aliceCus), "Mine")), "FAILED_PRECONDITION")
		if got := okAs[[]addressView](t, s.Query(nobody, opListAddresses, nil)); len(got) != 0 {
			t.Errorf("a user without a profile lists %+v", got)
		}
		expectError(t, s.Query(nobody, opGetAddress, map[string]any{"addressId": aHome}), "PERMISSION_DENIED")
		expectError(t, s.Query(nobody, opListAddresses, map[string]any{"customerId": aliceCus}), "PERMISSION_DENIED")
	})

	t.Run("another user cannot touch the address", func(t *testing.T) {
		expectError(t, s.Query(bob, opGetAddress, map[string]any{"addressId": aHome}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(bob, opUpdateAddress, map[string]any{"addressId": aHome, "name": "Mine now"}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(bob, opUpdateAddress, map[string]any{"addressId": aWork, "isActive": false}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(bob, opDeleteAddress, map[string]any{"addressId": aHome}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(bob, opSetDefault, map[string]any{"addressId": aWork}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(bob, opCreateAddress, p.addrArgs(aliceCus, "Planted")), "PERMISSION_DENIED")
		expectError(t, s.Query(bob, opListAddresses, map[string]any{"customerId": aliceCus}), "PERMISSION_DENIED")
		expectError(t, s.Query(alice, opGetAddress, map[string]any{"addressId": bHome}), "PERMISSION_DENIED")

		after := getAddr(t, s, alice, aHome)
		if after == nil || after.String() != before.String() {
			t.Errorf("alice's address changed by refused calls:\n got %v\nwant %v", after, before)
		}
		expectList(t, s, alice, true, aHome, aWork)
		expectList(t, s, bob, true, bHome)
	})

	t.Run("own customerId is accepted", func(t *testing.T) {
		got := okAs[[]addressView](t, s.Query(alice, opListAddresses, map[string]any{"customerId": aliceCus}))
		if strings.Join(idsOf(got), ",") != aHome+","+aWork {
			t.Errorf("list with own customerId: %v", idsOf(got))
		}
		expectError(t, s.Query(alice, opListAddresses, map[string]any{"customerId": "alice"}), "INVALID_ARGUMENT", "customerId")
		expectError(t, s.Query(alice, opListAddresses, map[string]any{"customerId": aHome}), "INVALID_ARGUMENT", "customerId")
		expectError(t, s.Query(alice, opListAddresses, map[string]any{"customerId": missingLike(aliceCus)}), "PERMISSION_DENIED")
	})
}

// TestAddressesCreateReadUpdate covers the read shape, the checks of city, area
// and coordinates, getAddress, and partial updates.
func TestAddressesCreateReadUpdate(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	alice, aliceCus := newCustomer(t, s, "user-alice")

	t0 := time.Now().UnixMilli()
	full := map[string]any{
		"customerId": aliceCus, "name": " Home ", "fullAddress": "Villa 12, Street 4, Dubai Marina",
		"city": p.dubai.ID, "area": p.marina.ID, "flatVilaNumber": "12", "buildingNameNumber": "Marina Heights 3",
		"landmark": "Near the mall", "latitude": "25.0805", "longitude": "55.1403",
	}
	home := createAddr(t, s, alice, full)
	t1 := time.Now().UnixMilli()
	wantHome := addressView{
		ID: home, CustomerID: aliceCus, Name: "Home", FullAddress: "Villa 12, Street 4, Dubai Marina",
		City: &p.dubai, Area: &p.marina, FlatVilaNumber: strp("12"), BuildingNameNumber: strp("Marina Heights 3"),
		Landmark: strp("Near the mall"), Latitude: strp("25.0805"), Longitude: strp("55.1403"), IsDefault: true, IsActive: true,
	}

	t.Run("read shape of getAddress and getCustomerAddresses", func(t *testing.T) {
		r := s.Query(alice, opGetAddress, map[string]any{"addressId": home})
		m := okAs[map[string]any](t, r)
		requireKeys(t, "address", m, "_id", "_creationTime", "customerId", "name", "fullAddress", "city", "area", "isDefault", "isActive")
		city, _ := m["city"].(map[string]any)
		area, _ := m["area"].(map[string]any)
		requireKeys(t, "address city", city, "_id", "name", "nameArabic")
		requireKeys(t, "address area", area, "_id", "name", "city")
		if _, ok := m["_creationTime"].(float64); !ok {
			t.Errorf("_creationTime is not a number: %s", r.Body)
		}
		got := okAs[addressView](t, r)
		if got.CreationTime < t0 || got.CreationTime > t1 {
			t.Errorf("_creationTime %d not within [%d, %d]", got.CreationTime, t0, t1)
		}
		wantHome.CreationTime = got.CreationTime
		if got.String() != wantHome.String() {
			t.Errorf("getAddress:\n got %v\nwant %v", got, wantHome)
		}

		r = s.Query(alice, opListAddresses, nil)
		items := okAs[[]map[string]any](t, r)
		if len(items) != 1 {
			t.Fatalf("list: %s", r.Body)
		}
		requireKeys(t, "listed address", items[0], "_id", "_creationTime", "name", "fullAddress", "city", "area", "isDefault", "isActive")
		if _, ok := items[0]["customerId"]; ok {
			t.Errorf("listed address carries customerId: %v", items[0])
		}
		listed := listAddrs(t, s, alice)[0]
		listed.CustomerID = aliceCus // absent from the list, as checked above
		if listed.String() != wantHome.String() {
			t.Errorf("listed:\n got %v\nwant %v", listed, wantHome)
		}
	})

	t.Run("optional fields may be left out", func(t *testing.T) {
		id := createAddr(t, s, alice, map[string]any{"customerId": aliceCus, "name": "Gym", "fullAddress": "Al Nahda St", "city": p.sharjah.ID, "area": p.nahda.ID})
		a := getAddr(t, s, alice, id)
		if a == nil || a.Name != "Gym" || *a.City != p.sharjah || *a.Area != p.nahda || a.FlatVilaNumber != nil || a.Landmark != nil ||
			a.Latitude != nil || a.Longitude != nil || a.IsDefault || !a.IsActive || a.CustomerID != aliceCus {
			t.Errorf("minimal address: %v", a)
		}
		okAs[any](t, s.Mutation(alice, opDeleteAddress, map[string]any{"addressId": id}))
	})

	t.Run("city and area must exist and match", func(t *testing.T) {
		with := func(k string, v any) map[string]any { m := p.addrArgs(aliceCus, "Bad"); m[k] = v; return m }
		expectError(t, s.Mutation(alice, opCreateAddress, with("city", missingLike(p.dubai.ID))), "NOT_FOUND")
		expectError(t, s.Mutation(alice, opCreateAddress, with("area", missingLike(p.marina.ID))), "NOT_FOUND")
		expectError(t, s.Mutation(alice, opCreateAddress, with("area", p.nahda.ID)), "INVALID_ARGUMENT", "area")
		sharjahMarina := with("city", p.sharjah.ID)
		expectError(t, s.Mutation(alice, opCreateAddress, sharjahMarina), "INVALID_ARGUMENT", "area")
		expectList(t, s, alice, true, home)
	})

	t.Run("invalid arguments name the field", func(t *testing.T) {
		with := func(k string, v any) map[string]any {
			m := p.addrArgs(aliceCus, "Bad")
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name  string
			args  any
			field string
		}{
			{"malformed city", with("city", "dubai"), "city"},
			{"area id as city", with("city", p.marina.ID), "city"},
			{"malformed area", with("area", "marina"), "area"},
			{"city id as area", with("area", p.dubai.ID), "area"},
			{"city not a string", with("city", 4), "city"},
			{"malformed customerId", with("customerId", "alice"), "customerId"},
			{"address id as customerId", with("customerId", home), "customerId"},
			{"missing customerId", with("customerId", nil), "customerId"},
			{"missing name", with("name", nil), "name"},
			{"blank name", with("name", "  "), "name"},
			{"missing fullAddress", with("fullAddress", nil), "fullAddress"},
			{"blank fullAddress", with("fullAddress", ""), "fullAddress"},
			{"missing city", with("city", nil), "city"},
			{"missing area", with("area", nil), "area"},
			{"latitude not decimal", with("latitude", "abc"), "latitude"},
			{"latitude above 90", with("latitude", "91"), "latitude"},
			{"latitude below -90", with("latitude", "-90.5"), "latitude"},
			{"latitude in exponent form", with("latitude", "1e1"), "latitude"},
			{"latitude empty", with("latitude", ""), "latitude"},
			{"latitude as a number", with("latitude", 25.2), "latitude"},
			{"longitude not decimal", with("longitude", "east"), "longitude"},
			{"longitude above 180", with("longitude", "180.01"), "longitude"},
			{"longitude below -180", with("longitude", "-181"), "longitude"},
			{"isDefault not a boolean", with("isDefault", "yes"), "isDefault"},
			{"isActive on create", with("isActive", true), "isActive"},
			{"unknown argument", with("zip", "00000"), "zip"},
			{"no args", nil, "customerId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(alice, opCreateAddress, c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		expectList(t, s, alice, true, home)
	})

	t.Run("coordinates at the limits are accepted", func(t *testing.T) {
		args := p.addrArgs(aliceCus, "Pole")
		args["latitude"], args["longitude"] = "-90", "180"
		id := createAddr(t, s, alice, args)
		if a := getAddr(t, s, alice, id); a == nil || *a.Latitude != "-90" || *a.Longitude != "180" {
			t.Errorf("limits: %v", a)
		}
		okAs[any](t, s.Mutation(alice, opDeleteAddress, map[string]any{"addressId": id}))
	})

	t.Run("getAddress of a missing or malformed id", func(t *testing.T) {
		isNull(t, s.Query(alice, opGetAddress, map[string]any{"addressId": missingLike(home)}))
		expectError(t, s.Query(alice, opGetAddress, map[string]any{"addressId": "home"}), "INVALID_ARGUMENT", "addressId")
		expectError(t, s.Query(alice, opGetAddress, map[string]any{"addressId": aliceCus}), "INVALID_ARGUMENT", "addressId")
		expectError(t, s.Query(alice, opGetAddress, nil), "INVALID_ARGUMENT", "addressId")
	})

	t.Run("operations on a missing address", func(t *testing.T) {
		gone := missingLike(home)
		expectError(t, s.Mutation(alice, opUpdateAddress, map[string]any{"addressId": gone, "name": "X"}), "NOT_FOUND")
		expectError(t, s.Mutation(alice, opDeleteAddress, map[string]any{"addressId": gone}), "NOT_FOUND")
		expectError(t, s.Mutation(alice, opSetDefault, map[string]any{"addressId": gone}), "NOT_FOUND")
		for _, path := range []string{opUpdateAddress, opDeleteAddress, opSetDefault} {
			expectError(t, s.Mutation(alice, path, map[string]any{"addressId": "x"}), "INVALID_ARGUMENT", "addressId")
			expectError(t, s.Mutation(alice, path, map[string]any{"addressId": p.dubai.ID}), "INVALID_ARGUMENT", "addressId")
		}
	})

	update := func(t *testing.T, args map[string]any) {
		t.Helper()
		args["addressId"] = home
		isNull(t, s.Mutation(alice, opUpdateAddress, args))
	}
	expectHome := func(t *testing.T) {
		t.Helper()
		if got := getAddr(t, s, alice, home); got == nil || got.String() != wantHome.String() {
			t.Fatalf("after update:\n got %v\nwant %v", got, wantHome)
		}
	}

	t.Run("updateAddress changes only the fields provided", func(t *testing.T) {
		update(t, map[string]any{"landmark": "Opposite the tram stop"})
		wantHome.Landmark = strp("Opposite the tram stop")
		expectHome(t)

		update(t, map[string]any{"name": "Home sweet home", "latitude": "25.1", "flatVilaNumber": "14B"})
		wantHome.Name, wantHome.Latitude, wantHome.FlatVilaNumber = "Home sweet home", strp("25.1"), strp("14B")
		expectHome(t)

		update(t, map[string]any{}) // nothing to change
		expectHome(t)

		update(t, map[string]any{"area": p.deira.ID}) // another area of the same city
		wantHome.Area = &p.deira
		expectHome(t)

		update(t, map[string]any{"city": p.sharjah.ID, "area": p.nahda.ID, "fullAddress": "Tower 2, Al Nahda"})
		wantHome.City, wantHome.Area, wantHome.FullAddress = &p.sharjah, &p.nahda, "Tower 2, Al Nahda"
		expectHome(t)
	})

	t.Run("a refused update changes nothing", func(t *testing.T) {
		cases := []struct {
			name, code string
			args       map[string]any
			field      string
		}{
			{"city alone, area of another city", "INVALID_ARGUMENT", map[string]any{"city": p.dubai.ID}, "area"},
			{"area alone, of another city", "INVALID_ARGUMENT", map[string]any{"area": p.marina.ID}, "area"},
			{"missing city", "NOT_FOUND", map[string]any{"city": missingLike(p.sharjah.ID)}, ""},
			{"missing area", "NOT_FOUND", map[string]any{"area": missingLike(p.nahda.ID)}, ""},
			{"malformed city", "INVALID_ARGUMENT", map[string]any{"city": "x"}, "city"},
			{"area id as city", "INVALID_ARGUMENT", map[string]any{"city": p.nahda.ID}, "city"},
			{"city id as area", "INVALID_ARGUMENT", map[string]any{"area": p.sharjah.ID}, "area"},
			{"latitude abc", "INVALID_ARGUMENT", map[string]any{"latitude": "abc", "name": "Changed"}, "latitude"},
			{"latitude 91", "INVALID_ARGUMENT", map[string]any{"latitude": "91"}, "latitude"},
			{"longitude -180.5", "INVALID_ARGUMENT", map[string]any{"longitude": "-180.5"}, "longitude"},
			{"blank name", "INVALID_ARGUMENT", map[string]any{"name": " "}, "name"},
			{"isActive not a boolean", "INVALID_ARGUMENT", map[string]any{"isActive": "no"}, "isActive"},
			{"customerId cannot be changed", "INVALID_ARGUMENT", map[string]any{"customerId": aliceCus}, "customerId"},
			{"default and inactive at once", "INVALID_ARGUMENT", map[string]any{"isDefault": true, "isActive": false}, "isDefault"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				c.args["addressId"] = home
				var fields []string
				if c.field != "" {
					fields = append(fields, c.field)
				}
				expectError(t, s.Mutation(alice, opUpdateAddress, c.args), c.code, fields...)
				expectHome(t)
			})
		}
		expectError(t, s.Mutation(alice, opUpdateAddress, map[string]any{"name": "X"}), "INVALID_ARGUMENT", "addressId")
	})
}

// TestAddressesDefault covers the single default (3.4): the first address, the
// three ways of moving it, deactivation, deletion and the list order.
func TestAddressesDefault(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	n := 0
	customer := func(t *testing.T) (string, func(name string, extra ...any) string) {
		t.Helper()
		n++
		tok, cus := newCustomer(t, s, fmt.Sprintf("user-%d", n))
		return tok, func(name string, extra ...any) string {
			t.Helper()
			args := p.addrArgs(cus, name)
			for i := 0; i+1 < len(extra); i += 2 {
				args[extra[i].(string)] = extra[i+1]
			}
			nextMillisecond() // "newest" is by creation time, to the millisecond
			return createAddr(t, s, tok, args)
		}
	}
	setDefault := func(t *testing.T, tok, id string) {
		t.Helper()
		isNull(t, s.Mutation(tok, opSetDefault, map[string]any{"addressId": id}))
	}
	update := func(t *testing.T, tok, id string, args map[string]any) {
		t.Helper()
		args["addressId"] = id
		isNull(t, s.Mutation(tok, opUpdateAddress, args))
	}
	del := func(t *testing.T, tok, id string) {
		t.Helper()
		isNull(t, s.Mutation(tok, opDeleteAddress, map[string]any{"addressId": id}))
	}

	t.Run("first address is the default, then the default first and newest first", func(t *testing.T) {
		tok, create := customer(t)
		expectList(t, s, tok, false)
		a1 := create("A1")
		expectList(t, s, tok, true, a1)
		a2 := create("A2")
		a3 := create("A3")
		a4 := create("A4", "isDefault", false)
		expectList(t, s, tok, true, a1, a4, a3, a2)
		if a := getAddr(t, s, tok, a4); a == nil || a.IsDefault {
			t.Errorf("a4: %v", a)
		}
	})

	t.Run("createAddress with isDefault true moves the default", func(t *testing.T) {
		tok, create := customer(t)
		a1 := create("A1")
		a2 := create("A2", "isDefault", true)
		expectList(t, s, tok, true, a2, a1)
		if a := getAddr(t, s, tok, a1); a == nil || a.IsDefault {
			t.Errorf("old default still default: %v", a)
		}
	})

	t.Run("updateAddress with isDefault true moves the default", func(t *testing.T) {
		tok, create := customer(t)
		a1, a2, a3 := create("A1"), create("A2"), create("A3")
		update(t, tok, a2, map[string]any{"isDefault": true})
		expectList(t, s, tok, true, a2, a3, a1)
		update(t, tok, a2, map[string]any{"isDefault": true}) // already the default
		expectList(t, s, tok, true, a2, a3, a1)
		if a := getAddr(t, s, tok, a2); a == nil || a.Name != "A2" {
			t.Errorf("other fields changed: %v", a)
		}
	})

	t.Run("setDefaultAddress moves the default", func(t *testing.T) {
		tok, create := customer(t)
		a1, a2, a3 := create("A1"), create("A2"), create("A3")
		setDefault(t, tok, a3)
		expectList(t, s, tok, true, a3, a2, a1)
		setDefault(t, tok, a1)
		expectList(t, s, tok, true, a1, a3, a2)
		setDefault(t, tok, a1) // idempotent
		expectList(t, s, tok, true, a1, a3, a2)
	})

	t.Run("deactivating hides the address; a deactivated default hands over", func(t *testing.T) {
		tok, create := customer(t)
		a1, a2, a3, a4 := create("A1"), create("A2"), create("A3"), create("A4")
		update(t, tok, a4, map[string]any{"isActive": false}) // not the default
		expectList(t, s, tok, true, a1, a3, a2)
		if a := getAddr(t, s, tok, a4); a == nil || a.IsActive || a.IsDefault || a.Name != "A4" {
			t.Errorf("getAddress of an inactive address: %v", a)
		}
		// The default goes: the most recent other active address takes over
		// (a3: a4 is newer but inactive, a2 is older).
		update(t, tok, a1, map[string]any{"isActive": false})
		expectList(t, s, tok, true, a3, a2)
		if a := getAddr(t, s, tok, a1); a == nil || a.IsActive || a.IsDefault {
			t.Errorf("deactivated default: %v", a)
		}
		expectError(t, s.Mutation(tok, opSetDefault, map[string]any{"addressId": a1}), "FAILED_PRECONDITION")
		expectError(t, s.Mutation(tok, opUpdateAddress, map[string]any{"addressId": a4, "isDefault": true}), "INVALID_ARGUMENT", "isDefault")
		expectList(t, s, tok, true, a3, a2)
		// Reactivated, it is listed again but does not take the default.
		update(t, tok, a4, map[string]any{"isActive": true})
		expectList(t, s, tok, true, a3, a4, a2)
		// Deactivating the last active default leaves no default.
		update(t, tok, a4, map[string]any{"isActive": false})
		update(t, tok, a2, map[string]any{"isActive": false})
		update(t, tok, a3, map[string]any{"isActive": false})
		expectList(t, s, tok, false)
		for _, id := range []string{a1, a2, a3, a4} {
			if a := getAddr(t, s, tok, id); a == nil || a.IsDefault || a.IsActive {
				t.Errorf("%s: %v", id, a)
			}
		}
		// Reactivating with isDefault in the same call makes it the default.
		update(t, tok, a1, map[string]any{"isActive": true, "isDefault": true})
		expectList(t, s, tok, true, a1)
	})

	t.Run("deleting the default hands over to the most recent other active address", func(t *testing.T) {
		tok, create := customer(t)
		a1, a2, a3, a4, a5 := create("A1"), create("A2"), create("A3"), create("A4"), create("A5")
		update(t, tok, a5, map[string]any{"isActive": false})
		setDefault(t, tok, a2)
		del(t, tok, a1) // not the default: the default stays
		expectList(t, s, tok, true, a2, a4, a3)
		isNull(t, s.Query(tok, opGetAddress, map[string]any{"addressId": a1}))
		expectError(t, s.Mutation(tok, opDeleteAddress, map[string]any{"addressId": a1}), "NOT_FOUND")
		del(t, tok, a2) // a5 is newer but inactive, a3 older: a4 takes over
		expectList(t, s, tok, true, a4, a3)
		setDefault(t, tok, a3)
		del(t, tok, a3)
		expectList(t, s, tok, true, a4)
		del(t, tok, a4) // only an inactive one remains: no default
		expectList(t, s, tok, false)
		if a := getAddr(t, s, tok, a5); a == nil || a.IsDefault || a.IsActive {
			t.Errorf("inactive address became the default: %v", a)
		}
		del(t, tok, a5)
		expectList(t, s, tok, false)
		// The next address is the first again and becomes the default.
		a6 := create("A6")
		expectList(t, s, tok, true, a6)
	})

	t.Run("deleting the last address leaves none", func(t *testing.T) {
		tok, create := customer(t)
		a1 := create("A1")
		del(t, tok, a1)
		expectList(t, s, tok, false)
		isNull(t, s.Query(tok, opGetAddress, map[string]any{"addressId": a1}))
	})

	t.Run("concurrent setDefaultAddress calls end with exactly one default", func(t *testing.T) {
		const k = 20
		tok, create := customer(t)
		ids := make([]string, k)
		for i := range ids {
			ids[i] = create(fmt.Sprintf("A%02d", i))
		}
		for round := range 2 {
			results := st.Concurrently(k, func(i int) st.Result {
				return s.Mutation(tok, opSetDefault, map[string]any{"addressId": ids[i]})
			})
			for i, r := range results {
				if r.Status != 200 {
					t.Errorf("round %d call %d: %d %s", round, i, r.Status, r.Body)
				}
			}
			list := listAddrs(t, s, tok)
			defaults := 0
			for _, a := range list {
				if a.IsDefault {
					defaults++
				}
			}
			if len(list) != k || defaults != 1 || !list[0].IsDefault {
				t.Fatalf("round %d: %d addresses, %d defaults, first default %v", round, len(list), defaults, len(list) > 0 && list[0].IsDefault)
			}
			count := 0
			for _, id := range ids {
				if a := getAddr(t, s, tok, id); a != nil && a.IsDefault {
					count++
				}
			}
			if count != 1 {
				t.Fatalf("round %d: getAddress shows %d defaults", round, count)
			}
		}
	})
}

// TestAddressesCap: a customer keeps at most 20 addresses; deleting one frees a slot.
func TestAddressesCap(t *testing.T) {
	s := st.Start(t)
	p := newPlaces(t, s)
	alice, aliceCus := newCustomer(t, s, "user-alice")
	bob, bobCus := newCustomer(t, s, "user-bob")

	ids := make([]string, maxAddresses)
	for i := range ids {
		ids[i] = createAddr(t, s, alice, p.addrArgs(aliceCus, fmt.Sprintf("A%02d", i)))
	}
	t.Run("the 21st is refused", func(t *testing.T) {
		expectError(t, s.Mutation(alice, opCreateAddress, p.addrArgs(aliceCus, "One too many")), "FAILED_PRECONDITION")
		if got := listAddrs(t, s, alice); len(got) != maxAddresses {
			t.Errorf("%d addresses, want %d", len(got), maxAddresses)
		}
	})
	t.Run("an inactive address still counts", func(t *testing.T) {
		isNull(t, s.Mutation(alice, opUpdateAddress, map[string]any{"addressId": ids[5], "isActive": false}))
		expectError(t, s.Mutation(alice, opCreateAddress, p.addrArgs(aliceCus, "One too many")), "FAILED_PRECONDITION")
	})
	t.Run("the cap is per customer", func(t *testing.T) {
		createAddr(t, s, bob, p.addrArgs(bobCus, "Bob's"))
	})
	t.Run("concurrent creates stop at the cap with one default", func(t *testing.T) {
		carol, carolCus := newCustomer(t, s, "user-carol")
		const n = maxAddresses + 5
		results := st.Concurrently(n, func(i int) st.Result {
			return s.Mutation(carol, opCreateAddress, p.addrArgs(carolCus, fmt.Sprintf("C%02d", i)))
		})
		ok := st.CountOK(t, results, "FAILED_PRECONDITION")
		list := listAddrs(t, s, carol)
		defaults := 0
		for _, a := range list {
			if a.IsDefault {
				defaults++
			}
		}
		if ok != maxAddresses || len(list) != maxAddresses || defaults != 1 || !list[0].IsDefault {
			t.Errorf("%d creates succeeded, %d listed, %d defaults; want %d, %d, 1 (first)", ok, len(list), defaults, maxAddresses, maxAddresses)
		}
	})
	t.Run("deleting one frees a slot", func(t *testing.T) {
		isNull(t, s.Mutation(alice, opDeleteAddress, map[string]any{"addressId": ids[3]}))
		again := createAddr(t, s, alice, p.addrArgs(aliceCus, "Replacement"))
		expectError(t, s.Mutation(alice, opCreateAddress, p.addrArgs(aliceCus, "One too many")), "FAILED_PRECONDITION")
		if a := getAddr(t, s, alice, again); a == nil || a.Name != "Replacement" {
			t.Errorf("replacement: %v", a)
		}
		if got := listAddrs(t, s, alice); len(got) != maxAddresses-1 { // one is inactive
			t.Errorf("%d active addresses, want %d", len(got), maxAddresses-1)
		}
	})
}
