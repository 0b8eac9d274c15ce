package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/auth"
)

// Helpers shared by the catalog and platform configuration tests.

// statusOf is the HTTP status the platform contract (section 2) gives each code.
var statusOf = map[string]int{
	"INVALID_ARGUMENT":    400,
	"UNAUTHENTICATED":     401,
	"PERMISSION_DENIED":   403,
	"NOT_FOUND":           404,
	"ALREADY_EXISTS":      409,
	"FAILED_PRECONDITION": 409,
}

// expectError checks an error answer: the code, its HTTP status, and that the
// message mentions each of msgHas (field names, usually).
func expectError(t testing.TB, r st.Result, code string, msgHas ...string) {
	t.Helper()
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Error == nil {
		t.Errorf("want %s, got %d %s", code, r.Status, strings.TrimSpace(string(r.Body)))
		return
	}
	if e.Error.Code != code || r.Status != statusOf[code] {
		t.Errorf("want %s (%d), got %d %s", code, statusOf[code], r.Status, strings.TrimSpace(string(r.Body)))
		return
	}
	if strings.TrimSpace(e.Error.Message) == "" {
		t.Errorf("error without a message: %s", r.Body)
	}
	for _, m := range msgHas {
		if !strings.Contains(e.Error.Message, m) {
			t.Errorf("%s message %q does not mention %q", code, e.Error.Message, m)
		}
	}
}

// okAs requires a 200 and decodes its body.
func okAs[T any](t testing.TB, r st.Result) T {
	t.Helper()
	st.MustOK(t, r)
	var v T
	r.Decode(t, &v)
	return v
}

// okID requires a 200 whose body is a non-empty id string.
func okID(t testing.TB, r st.Result) string {
	t.Helper()
	id := okAs[string](t, r)
	if id == "" {
		t.Fatalf("empty id in %s", r.Body)
	}
	return id
}

// missingLike turns a real id into a well-formed id of the same kind that names no
// record. Ids end in hex digits and ids made together differ only in their last
// ones, so every hex digit of the last 16 characters is changed, not just one.
func missingLike(id string) string {
	const hex = "0123456789abcdef"
	b := []byte(id)
	for i := max(0, len(b)-16); i < len(b); i++ {
		if v := strings.IndexByte(hex, b[i]); v >= 0 {
			b[i] = hex[(v+8)%16]
		}
	}
	return string(b)
}

func expiredToken(t testing.TB, s *st.Sys, sub string, roles ...string) string {
	t.Helper()
	tok, err := auth.Mint([]byte(s.DevSecret), sub, roles, -time.Hour, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// opCall is one operation call, for tests that try many operations alike.
type opCall struct {
	kind, path string
	args       map[string]any
}

// expectAllNeedToken: each call without a token, with a garbage token and with an
// expired one is UNAUTHENTICATED.
func expectAllNeedToken(t *testing.T, s *st.Sys, calls []opCall) {
	t.Helper()
	for _, c := range calls {
		for _, tok := range []string{"", "garbage", expiredToken(t, s, "user-alice")} {
			call := s.Query
			if c.kind == "mutation" {
				call = s.Mutation
			}
			expectError(t, call(tok, c.path, c.args), "UNAUTHENTICATED")
		}
	}
}

func newCity(t testing.TB, s *st.Sys, admin, name, arabic string) string {
	t.Helper()
	return okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": name, "nameArabic": arabic}))
}

func newArea(t testing.TB, s *st.Sys, admin, name, city string) string {
	t.Helper()
	return okID(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": name, "city": city}))
}

func newCategory(t testing.TB, s *st.Sys, admin, name string) string {
	t.Helper()
	return okID(t, s.Mutation(admin, "admins.catalog.createCategory", map[string]any{"name": name}))
}

// newStore creates a store owned by owner; category and tier are left out when "".
func newStore(t testing.TB, s *st.Sys, admin, name, owner, category, tier string) string {
	t.Helper()
	args := map[string]any{"name": name, "ownerUserId": owner, "ownerName": "Owner of " + name, "ownerPhone": "+971500000000"}
	if category != "" {
		args["primaryCategoryId"] = category
	}
	if tier != "" {
		args["tier"] = tier
	}
	return okID(t, s.Mutation(admin, "admins.catalog.createStore", args))
}

type cityView struct {
	ID         string `json:"_id"`
	Name       string `json:"name"`
	NameArabic string `json:"nameArabic"`
}

type areaView struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
	City string `json:"city"`
}

type categoryView struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
}

type productView struct {
	ID          string  `json:"_id"`
	StoreID     string  `json:"storeId"`
	Name        string  `json:"name"`
	Price       float64 `json:"price"`
	IsAvailable bool    `json:"isAvailable"`
}

func listCategories(t testing.TB, s *st.Sys) []categoryView {
	t.Helper()
	return okAs[[]categoryView](t, s.Query("", "catalog.categories.listCategories", nil))
}

func requireKeys(t testing.TB, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q: %v", what, k, m)
		}
	}
}

// TestCatalogAdminOperationsNeedAdmin: the four admins.catalog mutations refuse
// anonymous callers (401), bad or expired tokens (401) and non-admins (403), and
// a refused call creates nothing.
func TestCatalogAdminOperationsNeedAdmin(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	city := newCity(t, s, admin, "Dubai", "دبي")
	cat := newCategory(t, s, admin, "Food")

	calls := map[string]map[string]any{
		"admins.catalog.createCity":     {"name": "Sharjah", "nameArabic": "الشارقة"},
		"admins.catalog.createArea":     {"name": "Marina", "city": city},
		"admins.catalog.createCategory": {"name": "Books"},
		"admins.catalog.createStore":    {"name": "Shop", "ownerUserId": "u1", "ownerName": "U", "ownerPhone": "1", "primaryCategoryId": cat},
	}
	callers := []struct {
		name, token, code string
	}{
		{"anonymous", "", "UNAUTHENTICATED"},
		{"garbage token", "not-a-jwt", "UNAUTHENTICATED"},
		{"expired admin token", expiredToken(t, s, "admin-1", "admin"), "UNAUTHENTICATED"},
		{"non-admin", s.Token("user-1"), "PERMISSION_DENIED"},
		{"other role", s.Token("user-2", "store_owner"), "PERMISSION_DENIED"},
	}
	for path, args := range calls {
		for _, c := range callers {
			t.Run(path+"/"+c.name, func(t *testing.T) {
				expectError(t, s.Mutation(c.token, path, args), c.code)
			})
		}
	}
	t.Run("nothing was created", func(t *testing.T) {
		if cs := okAs[[]cityView](t, s.Query("", "catalog.locations.listCities", nil)); len(cs) != 1 || cs[0].Name != "Dubai" {
			t.Errorf("cities: %+v", cs)
		}
		if as := okAs[[]areaView](t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": city})); len(as) != 0 {
			t.Errorf("areas: %+v", as)
		}
		if cs := listCategories(t, s); len(cs) != 1 || cs[0].Name != "Food" {
			t.Errorf("categories: %+v", cs)
		}
	})
	t.Run("admin succeeds", func(t *testing.T) {
		for path, args := range calls {
			okID(t, s.Mutation(admin, path, args))
		}
	})
}

// TestCatalogCities covers createCity and listCities.
func TestCatalogCities(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")

	t.Run("empty list", func(t *testing.T) {
		if r := st.MustOK(t, s.Query("", "catalog.locations.listCities", nil)); strings.TrimSpace(string(r.Body)) != "[]" {
			t.Fatalf("want [], got %s", r.Body)
		}
	})

	sharjah := newCity(t, s, admin, "Sharjah", "الشارقة")
	dubai := newCity(t, s, admin, "Dubai", "دبي")
	abuDhabi := newCity(t, s, admin, "Abu Dhabi", "أبو ظبي")

	t.Run("listed sorted by name with the contract's shape", func(t *testing.T) {
		r := s.Query("", "catalog.locations.listCities", nil)
		raw := okAs[[]map[string]any](t, r)
		if len(raw) != 3 {
			t.Fatalf("want 3 cities, got %s", r.Body)
		}
		for _, m := range raw {
			requireKeys(t, "city", m, "_id", "name", "nameArabic")
			if _, leak := m["nameKey"]; leak {
				t.Errorf("internal field leaked: %v", m)
			}
		}
		got := okAs[[]cityView](t, r)
		want := []cityView{{abuDhabi, "Abu Dhabi", "أبو ظبي"}, {dubai, "Dubai", "دبي"}, {sharjah, "Sharjah", "الشارقة"}}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("city %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
	})

	t.Run("a token is not needed but a bad one is refused", func(t *testing.T) {
		st.MustOK(t, s.Query(s.Token("user-1"), "catalog.locations.listCities", nil))
		expectError(t, s.Query("garbage", "catalog.locations.listCities", nil), "UNAUTHENTICATED")
	})

	t.Run("duplicate names are refused regardless of case and spacing", func(t *testing.T) {
		for _, name := range []string{"Dubai", "dubai", "DUBAI", "  Dubai  ", "abu  dhabi"} {
			expectError(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": name, "nameArabic": "x"}), "ALREADY_EXISTS")
		}
		if cs := okAs[[]cityView](t, s.Query("", "catalog.locations.listCities", nil)); len(cs) != 3 {
			t.Errorf("a duplicate was stored: %+v", cs)
		}
	})

	t.Run("invalid arguments name the field", func(t *testing.T) {
		cases := []struct {
			name  string
			args  any
			field string
		}{
			{"no args", nil, "name"},
			{"missing name", map[string]any{"nameArabic": "x"}, "name"},
			{"missing nameArabic", map[string]any{"name": "Ajman"}, "nameArabic"},
			{"null name", map[string]any{"name": nil, "nameArabic": "x"}, "name"},
			{"blank name", map[string]any{"name": "   ", "nameArabic": "x"}, "name"},
			{"empty name", map[string]any{"name": "", "nameArabic": "x"}, "name"},
			{"blank nameArabic", map[string]any{"name": "Ajman", "nameArabic": " "}, "nameArabic"},
			{"name not a string", map[string]any{"name": 5, "nameArabic": "x"}, "name"},
			{"nameArabic not a string", map[string]any{"name": "Ajman", "nameArabic": true}, "nameArabic"},
			{"name too long", map[string]any{"name": strings.Repeat("a", 101), "nameArabic": "x"}, "name"},
			{"unknown argument", map[string]any{"name": "Ajman", "nameArabic": "x", "population": 5}, "population"},
			{"args not an object", []string{"Ajman"}, "args"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(admin, "admins.catalog.createCity", c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		if cs := okAs[[]cityView](t, s.Query("", "catalog.locations.listCities", nil)); len(cs) != 3 {
			t.Errorf("an invalid city was stored: %+v", cs)
		}
	})

	t.Run("listCities takes no arguments", func(t *testing.T) {
		expectError(t, s.Query("", "catalog.locations.listCities", map[string]any{"city": dubai}), "INVALID_ARGUMENT", "city")
	})
}

// TestCatalogAreas covers createArea and listAreas.
func TestCatalogAreas(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	dubai := newCity(t, s, admin, "Dubai", "دبي")
	sharjah := newCity(t, s, admin, "Sharjah", "الشارقة")
	empty := newCity(t, s, admin, "Fujairah", "الفجيرة")
	marina := newArea(t, s, admin, "Marina", dubai)
	deira := newArea(t, s, admin, "Deira", dubai)
	alNahda := newArea(t, s, admin, "Al Nahda", sharjah)
	// The same name in another city is a different area.
	sharjahMarina := newArea(t, s, admin, "Marina", sharjah)

	list := func(t *testing.T, city string) []areaView {
		t.Helper()
		return okAs[[]areaView](t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": city}))
	}

	t.Run("only the city's areas, sorted by name, with the contract's shape", func(t *testing.T) {
		r := s.Query("", "catalog.locations.listAreas", map[string]any{"city": dubai})
		for _, m := range okAs[[]map[string]any](t, r) {
			requireKeys(t, "area", m, "_id", "name", "city")
		}
		got := okAs[[]areaView](t, r)
		want := []areaView{{deira, "Deira", dubai}, {marina, "Marina", dubai}}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("Dubai areas: got %+v, want %+v", got, want)
		}
		got = list(t, sharjah)
		want = []areaView{{alNahda, "Al Nahda", sharjah}, {sharjahMarina, "Marina", sharjah}}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("Sharjah areas: got %+v, want %+v", got, want)
		}
		if got := list(t, empty); len(got) != 0 {
			t.Errorf("a city without areas: %+v", got)
		}
	})

	t.Run("duplicate name in the same city", func(t *testing.T) {
		for _, name := range []string{"Marina", "marina", " MARINA "} {
			expectError(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": name, "city": dubai}), "ALREADY_EXISTS")
		}
		if got := list(t, dubai); len(got) != 2 {
			t.Errorf("a duplicate was stored: %+v", got)
		}
	})

	t.Run("missing city", func(t *testing.T) {
		gone := missingLike(dubai)
		expectError(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": "Nowhere", "city": gone}), "NOT_FOUND")
		expectError(t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": gone}), "NOT_FOUND")
	})

	t.Run("invalid arguments name the field", func(t *testing.T) {
		cases := []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"malformed city", map[string]any{"name": "X", "city": "dubai"}, "city"},
			{"empty city", map[string]any{"name": "X", "city": ""}, "city"},
			{"area id as city", map[string]any{"name": "X", "city": marina}, "city"},
			{"city not a string", map[string]any{"name": "X", "city": 7}, "city"},
			{"missing city", map[string]any{"name": "X"}, "city"},
			{"missing name", map[string]any{"city": dubai}, "name"},
			{"blank name", map[string]any{"name": "\t ", "city": dubai}, "name"},
			{"name not a string", map[string]any{"name": []string{"X"}, "city": dubai}, "name"},
			{"unknown argument", map[string]any{"name": "X", "city": dubai, "cityName": "Dubai"}, "cityName"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(admin, "admins.catalog.createArea", c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		if got := list(t, dubai); len(got) != 2 {
			t.Errorf("an invalid area was stored: %+v", got)
		}
	})

	t.Run("listAreas arguments", func(t *testing.T) {
		expectError(t, s.Query("", "catalog.locations.listAreas", nil), "INVALID_ARGUMENT", "city")
		expectError(t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": "x"}), "INVALID_ARGUMENT", "city")
		expectError(t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": marina}), "INVALID_ARGUMENT", "city")
		expectError(t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": dubai, "limit": 5}), "INVALID_ARGUMENT", "limit")
	})
}

// TestCatalogCategories covers createCategory and listCategories.
func TestCatalogCategories(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	food := newCategory(t, s, admin, "Food")
	elec := okID(t, s.Mutation(admin, "admins.catalog.createCategory", map[string]any{"name": "Electronics", "nameArabic": "إلكترونيات"}))

	t.Run("listed by name", func(t *testing.T) {
		r := s.Query("", "catalog.categories.listCategories", nil)
		got := okAs[[]map[string]any](t, r)
		if len(got) != 2 || got[0]["_id"] != elec || got[0]["name"] != "Electronics" || got[0]["nameArabic"] != "إلكترونيات" ||
			got[1]["_id"] != food || got[1]["name"] != "Food" {
			t.Errorf("categories: %s", r.Body)
		}
	})

	t.Run("duplicate names are refused regardless of case", func(t *testing.T) {
		for _, name := range []string{"Food", "food", "FOOD", " fOOd "} {
			expectError(t, s.Mutation(admin, "admins.catalog.createCategory", map[string]any{"name": name}), "ALREADY_EXISTS")
		}
		if got := listCategories(t, s); len(got) != 2 {
			t.Errorf("a duplicate was stored: %+v", got)
		}
	})

	t.Run("invalid arguments name the field", func(t *testing.T) {
		cases := []struct {
			name  string
			args  any
			field string
		}{
			{"missing name", map[string]any{"nameArabic": "x"}, "name"},
			{"blank name", map[string]any{"name": "  "}, "name"},
			{"name not a string", map[string]any{"name": 1}, "name"},
			{"nameArabic not a string", map[string]any{"name": "Books", "nameArabic": 1}, "nameArabic"},
			{"unknown argument", map[string]any{"name": "Books", "rate": 0.1}, "rate"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(admin, "admins.catalog.createCategory", c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		if got := listCategories(t, s); len(got) != 2 {
			t.Errorf("an invalid category was stored: %+v", got)
		}
	})
}

// TestCatalogStores covers createStore and getStore.
func TestCatalogStores(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	food := newCategory(t, s, admin, "Food")
	city := newCity(t, s, admin, "Dubai", "دبي")

	get := func(t *testing.T, id string) map[string]any {
		t.Helper()
		return okAs[map[string]any](t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": id}))
	}

	t.Run("defaults: basic tier, no category", func(t *testing.T) {
		id := okID(t, s.Mutation(admin, "admins.catalog.createStore", map[string]any{
			"name": "Corner Shop", "ownerUserId": "owner-1", "ownerName": "Omar", "ownerPhone": "+971501234567",
		}))
		m := get(t, id)
		requireKeys(t, "store", m, "_id", "name", "ownerUserId", "primaryCategoryId", "tier")
		if m["_id"] != id || m["name"] != "Corner Shop" || m["ownerUserId"] != "owner-1" || m["tier"] != "basic" || m["primaryCategoryId"] != nil {
			t.Errorf("store: %v", m)
		}
	})

	t.Run("category and every tier", func(t *testing.T) {
		for _, tier := range []string{"basic", "premium", "enterprise"} {
			id := newStore(t, s, admin, "Shop "+tier, "owner-"+tier, food, tier)
			m := get(t, id)
			if m["_id"] != id || m["tier"] != tier || m["primaryCategoryId"] != food || m["ownerUserId"] != "owner-"+tier || m["name"] != "Shop "+tier {
				t.Errorf("%s store: %v", tier, m)
			}
		}
	})

	t.Run("missing store is null, malformed id is invalid", func(t *testing.T) {
		id := newStore(t, s, admin, "Real", "owner-2", "", "")
		r := st.MustOK(t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": missingLike(id)}))
		if strings.TrimSpace(string(r.Body)) != "null" {
			t.Errorf("missing store: %s", r.Body)
		}
		for _, bad := range []any{"nope", "", food, 12} {
			expectError(t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": bad}), "INVALID_ARGUMENT", "storeId")
		}
		expectError(t, s.Query("", "stores.catalog.getStore", nil), "INVALID_ARGUMENT", "storeId")
	})

	t.Run("primaryCategoryId must name a category", func(t *testing.T) {
		base := func(cat any) map[string]any {
			return map[string]any{"name": "S", "ownerUserId": "o", "ownerName": "O", "ownerPhone": "1", "primaryCategoryId": cat}
		}
		expectError(t, s.Mutation(admin, "admins.catalog.createStore", base(missingLike(food))), "NOT_FOUND")
		expectError(t, s.Mutation(admin, "admins.catalog.createStore", base("food")), "INVALID_ARGUMENT", "primaryCategoryId")
		expectError(t, s.Mutation(admin, "admins.catalog.createStore", base(city)), "INVALID_ARGUMENT", "primaryCategoryId")
	})

	t.Run("invalid arguments name the field", func(t *testing.T) {
		full := func() map[string]any {
			return map[string]any{"name": "S", "ownerUserId": "o", "ownerName": "O", "ownerPhone": "1"}
		}
		with := func(k string, v any) map[string]any { m := full(); m[k] = v; return m }
		without := func(k string) map[string]any { m := full(); delete(m, k); return m }
		cases := []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"missing name", without("name"), "name"},
			{"missing ownerUserId", without("ownerUserId"), "ownerUserId"},
			{"missing ownerName", without("ownerName"), "ownerName"},
			{"missing ownerPhone", without("ownerPhone"), "ownerPhone"},
			{"blank name", with("name", " "), "name"},
			{"blank ownerUserId", with("ownerUserId", ""), "ownerUserId"},
			{"blank ownerName", with("ownerName", "  "), "ownerName"},
			{"ownerPhone not a string", with("ownerPhone", 971501234567), "ownerPhone"},
			{"unknown tier", with("tier", "gold"), "tier"},
			{"tier in capitals", with("tier", "Premium"), "tier"},
			{"tier not a string", with("tier", 2), "tier"},
			{"unknown argument", with("commissionRate", 0.1), "commissionRate"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(admin, "admins.catalog.createStore", c.args), "INVALID_ARGUMENT", c.field)
			})
		}
	})
}

// TestCatalogProducts covers createProduct and listProducts.
func TestCatalogProducts(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner := s.Token("owner-1")
	store := newStore(t, s, admin, "Bakery", "owner-1", "", "")
	other := newStore(t, s, admin, "Other", "owner-2", "", "")

	list := func(t *testing.T, storeID string) []productView {
		t.Helper()
		return okAs[[]productView](t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": storeID}))
	}
	create := func(token string, args map[string]any) st.Result {
		return s.Mutation(token, "stores.products.createProduct", args)
	}

	t.Run("empty list", func(t *testing.T) {
		if got := list(t, store); len(got) != 0 {
			t.Errorf("products: %+v", got)
		}
	})

	bread := okID(t, create(owner, map[string]any{"storeId": store, "name": "Bread", "price": 12.5}))
	cake := okID(t, create(owner, map[string]any{"storeId": store, "name": "Cake", "price": 19.99, "isAvailable": false}))
	mint := okID(t, create(owner, map[string]any{"storeId": store, "name": "Mint", "price": 0.01, "isAvailable": true}))
	okID(t, create(s.Token("owner-2"), map[string]any{"storeId": other, "name": "Elsewhere", "price": 3}))

	t.Run("listed with AED prices and availability", func(t *testing.T) {
		r := s.Query("", "stores.products.listProducts", map[string]any{"storeId": store})
		for _, m := range okAs[[]map[string]any](t, r) {
			requireKeys(t, "product", m, "_id", "storeId", "name", "price", "isAvailable")
		}
		got := map[string]productView{}
		for _, p := range okAs[[]productView](t, r) {
			got[p.ID] = p
		}
		want := []productView{
			{bread, store, "Bread", 12.5, true},
			{cake, store, "Cake", 19.99, false},
			{mint, store, "Mint", 0.01, true},
		}
		if len(got) != len(want) {
			t.Fatalf("want %d products, got %s", len(want), r.Body)
		}
		for _, w := range want {
			if got[w.ID] != w {
				t.Errorf("product: got %+v, want %+v", got[w.ID], w)
			}
		}
	})

	t.Run("only the store's owner", func(t *testing.T) {
		args := map[string]any{"storeId": store, "name": "Stolen", "price": 1}
		expectError(t, create("", args), "UNAUTHENTICATED")
		expectError(t, create("garbage", args), "UNAUTHENTICATED")
		expectError(t, create(expiredToken(t, s, "owner-1"), args), "UNAUTHENTICATED")
		expectError(t, create(s.Token("owner-2"), args), "PERMISSION_DENIED")
		expectError(t, create(s.Token("someone"), args), "PERMISSION_DENIED")
		expectError(t, create(admin, args), "PERMISSION_DENIED")
		if got := list(t, store); len(got) != 3 {
			t.Errorf("a refused product was stored: %+v", got)
		}
	})

	t.Run("price and other arguments", func(t *testing.T) {
		with := func(k string, v any) map[string]any {
			m := map[string]any{"storeId": store, "name": "P", "price": 5}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"zero price", with("price", 0), "price"},
			{"negative price", with("price", -1), "price"},
			{"three decimals", with("price", 1.005), "price"},
			{"a thousandth", with("price", 0.001), "price"},
			{"price as a string", with("price", "5"), "price"},
			{"missing price", with("price", nil), "price"},
			{"missing name", with("name", nil), "name"},
			{"blank name", with("name", " "), "name"},
			{"isAvailable not a boolean", with("isAvailable", "yes"), "isAvailable"},
			{"missing storeId", with("storeId", nil), "storeId"},
			{"malformed storeId", with("storeId", "bakery"), "storeId"},
			{"product id as storeId", with("storeId", bread), "storeId"},
			{"unknown argument", with("stock", 3), "stock"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, create(owner, c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		if got := list(t, store); len(got) != 3 {
			t.Errorf("an invalid product was stored: %+v", got)
		}
	})

	t.Run("missing store", func(t *testing.T) {
		gone := missingLike(store)
		expectError(t, create(owner, map[string]any{"storeId": gone, "name": "P", "price": 5}), "NOT_FOUND")
		expectError(t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": gone}), "NOT_FOUND")
		expectError(t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": "x"}), "INVALID_ARGUMENT", "storeId")
	})
}
