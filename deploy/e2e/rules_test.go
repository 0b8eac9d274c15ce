package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestStoreOwnerContactIsPrivate: getStore is public, but the owner's name and
// phone are only for the owner and administrators.
func TestStoreOwnerContactIsPrivate(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	id := newStore(t, s, admin, "Corner Shop", "owner-1", "", "")
	for _, c := range []struct {
		name, token string
		sees        bool
	}{
		{"anonymous", "", false}, {"another user", s.Token("user-2"), false},
		{"the owner", s.Token("owner-1"), true}, {"an administrator", admin, true},
	} {
		got := okAs[map[string]any](t, s.Query(c.token, "stores.catalog.getStore", map[string]any{"storeId": id}))
		_, hasPhone := got["ownerPhone"]
		_, hasName := got["ownerName"]
		if got["ownerUserId"] != "owner-1" || got["name"] != "Corner Shop" || hasPhone != c.sees || hasName != c.sees {
			t.Errorf("%s sees %v", c.name, got)
		}
		if c.sees && got["ownerPhone"] != "+971500000000" {
			t.Errorf("%s: phone %v", c.name, got["ownerPhone"])
		}
	}
}

// TestCommissionRulesAcrossLevels covers the rules that tie levels and fields
// together, and the location settings.
func TestCommissionRulesAcrossLevels(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	id := initConfig(t, s)
	cat := okID(t, s.Mutation(admin, "admins.catalog.createCategory", map[string]any{"name": "Flowers"}))
	update := func(args map[string]any) st.Result {
		args["adminUserId"], args["configId"] = "admin-1", id
		return s.Mutation(admin, pcUpdate, args)
	}
	addCat := func(args map[string]any) st.Result {
		args["adminUserId"], args["configId"], args["categoryId"] = "admin-1", id, cat
		return s.Mutation(admin, pcAddCat, args)
	}

	// A category minimum above the platform maximum (50) would make both clamps apply.
	expectError(t, addCat(map[string]any{"commissionRate": 0.05, "minimumCommission": 50.01}), "INVALID_ARGUMENT", "minimumCommission")
	st.MustOK(t, addCat(map[string]any{"commissionRate": 0.05, "minimumCommission": 40}))
	// ...and so does lowering the maximum below it, or below a tier's minimum.
	expectError(t, update(map[string]any{"maximumCommission": 30}), "INVALID_ARGUMENT", "minimumCommission")
	st.MustOK(t, addCat(map[string]any{"commissionRate": 0.05}))
	expectError(t, update(map[string]any{"maximumCommission": 0.9}), "INVALID_ARGUMENT") // premium's minimum is 1
	// Rates are computed in millionths: more decimals would be shown one way and charged another.
	expectError(t, addCat(map[string]any{"commissionRate": 0.1234567}), "INVALID_ARGUMENT", "6 decimals")
	expectError(t, update(map[string]any{"defaultCommissionRate": 0.0000001}), "INVALID_ARGUMENT", "6 decimals")
	st.MustOK(t, update(map[string]any{"defaultCommissionRate": 0.123456}))

	// Location settings: partial, and the default radius never above the maximum.
	c := okAs[platformConfig](t, update(map[string]any{"locationSettings": map[string]any{"maxSearchRadiusKm": 80}}))
	if c.LocationSettings.MaxSearchRadiusKm != 80 || c.LocationSettings.DefaultSearchRadiusKm != 10 {
		t.Fatalf("partial location update: %+v", c.LocationSettings)
	}
	expectError(t, update(map[string]any{"locationSettings": map[string]any{"defaultSearchRadiusKm": 81}}), "INVALID_ARGUMENT", "defaultSearchRadiusKm")
	expectError(t, update(map[string]any{"locationSettings": map[string]any{"maxSearchRadiusKm": 0}}), "INVALID_ARGUMENT", "maxSearchRadiusKm")
	c = okAs[platformConfig](t, s.Query(admin, "admins.platformAdmin.getActivePlatformConfig", nil))
	if c.LocationSettings.MaxSearchRadiusKm != 80 || c.LocationSettings.DefaultSearchRadiusKm != 10 || c.DefaultCommissionRate != 0.123456 {
		t.Fatalf("refused updates changed the configuration: %+v", c)
	}
}

// TestTextAndNumberRules: what the strict decoder refuses or normalises, seen
// through the gateway: control and bidirectional override characters in text
// (named by field, nothing stored), NFC, amounts that are not whole fils however
// tiny, negative zero shown as 0, and case-sensitive body keys agreed on by the
// gateway and the services.
func TestTextAndNumberRules(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	for _, text := range []string{"Noor\x00", "\x1b[31mNoor", "Noor\u202egnp.exe", "No\nor", "Noor\u0085"} {
		expectError(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": text}), "INVALID_ARGUMENT", "name")
		expectError(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": text}), "INVALID_ARGUMENT", "nameArabic")
	}
	if r := st.MustOK(t, s.Query(user, "customers.profile.getMyProfile", nil)); string(r.Body) != "null" {
		t.Fatalf("a refused profile was stored: %s", r.Body)
	}
	if cities := okAs[[]map[string]any](t, s.Query("", "catalog.locations.listCities", nil)); len(cities) != 0 {
		t.Fatalf("a refused city was stored: %v", cities)
	}
	// NFC: a decomposed "é" is stored composed.
	okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Rene\u0301e"}))
	if p := okAs[map[string]any](t, s.Query(user, "customers.profile.getMyProfile", nil)); p["name"] != "Ren\u00e9e" {
		t.Fatalf("name %q is not NFC", p["name"])
	}

	initConfig(t, s)
	cfg := okAs[platformConfig](t, s.Query(admin, "admins.platformAdmin.getActivePlatformConfig", nil))
	store := newStore(t, s, admin, "Corner Shop", "owner-1", "", "")
	expectError(t, s.Query(admin, "admins.platformAdmin.getCommissionPreview", map[string]any{"storeId": store, "subtotal": 1e-300}), "INVALID_ARGUMENT", "subtotal")
	r := st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg.ID, "defaultCommissionRate": json.Number("-0")}))
	if strings.Contains(string(r.Body), "-0") {
		t.Fatalf("negative zero echoed: %s", r.Body)
	}

	// Body keys are case-sensitive, at the gateway and at the service alike.
	for _, body := range []string{`{"PATH":"catalog.locations.listCities"}`, `{"path":"catalog.locations.listCities","Args":{}}`} {
		expectError(t, s.Do("POST", "/api/query", strings.NewReader(body), nil), "INVALID_ARGUMENT", "unknown key")
		expectError(t, s.DoAt(s.Services["catalog"], "POST", "/api/query", strings.NewReader(body), nil), "INVALID_ARGUMENT", "unknown key")
	}
}
