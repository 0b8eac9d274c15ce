package e2e

import (
	"sync"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// TestRenamedPlacesReachAddresses: addresses show city and area names from the
// addresses service's projection, which follows the catalog's events; a rename in
// the catalog shows up in every address without a write to it.
func TestRenamedPlacesReachAddresses(t *testing.T) {
	s := st.Start(t)
	admin, user := s.Token("admin-1", "admin"), s.Token("user-1")
	city := okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"}))
	area := okID(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": "Marina", "city": city}))
	customer := okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Layla"}))
	for _, n := range []string{"Home", "Work"} {
		okID(t, s.Mutation(user, "customers.addresses.createAddress", map[string]any{
			"customerId": customer, "name": n, "fullAddress": n + " street", "city": city, "area": area}))
	}

	st.MustOK(t, s.Mutation(admin, "admins.catalog.updateCity", map[string]any{"cityId": city, "name": "Dubayy", "nameArabic": "دبيّ"}))
	st.MustOK(t, s.Mutation(admin, "admins.catalog.updateArea", map[string]any{"areaId": area, "name": "Dubai Marina"}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var list []struct {
			City struct{ ID, Name, NameArabic string } `json:"city"`
			Area struct{ ID, Name, City string }       `json:"area"`
		}
		st.MustOK(t, s.Query(user, "customers.addresses.getCustomerAddresses", nil)).Decode(t, &list)
		renamed := len(list) == 2
		for _, a := range list {
			renamed = renamed && a.City.Name == "Dubayy" && a.City.NameArabic == "دبيّ" && a.Area.Name == "Dubai Marina" && a.Area.City == city
		}
		if renamed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("renames never reached the addresses: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The catalog's own lists show the new names at once, and the renames keep the
	// uniqueness rules.
	cities := okAs[[]map[string]any](t, s.Query("", "catalog.locations.listCities", nil))
	if len(cities) != 1 || cities[0]["name"] != "Dubayy" {
		t.Fatalf("cities: %v", cities)
	}
	other := okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Sharjah", "nameArabic": "الشارقة"}))
	expectError(t, s.Mutation(admin, "admins.catalog.updateCity", map[string]any{"cityId": other, "name": "dubayy"}), "ALREADY_EXISTS")
	expectError(t, s.Mutation(admin, "admins.catalog.updateCity", map[string]any{"cityId": missingLike(other), "name": "X"}), "NOT_FOUND")
	expectError(t, s.Mutation(user, "admins.catalog.updateArea", map[string]any{"areaId": area, "name": "X"}), "PERMISSION_DENIED")
}

// TestAddressDefaultOptOuts: the first address becomes the default unless the
// caller says isDefault false; updateAddress isDefault false on the default
// leaves the customer without one (docs/adr/0031-addresses.md).
func TestAddressDefaultOptOuts(t *testing.T) {
	s := st.Start(t)
	admin, user := s.Token("admin-1", "admin"), s.Token("user-1")
	city := okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Fujairah", "nameArabic": "الفجيرة"}))
	area := okID(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": "Dibba", "city": city}))
	customer := okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Omar"}))
	create := func(name string, isDefault any) string {
		args := map[string]any{"customerId": customer, "name": name, "fullAddress": name, "city": city, "area": area}
		if isDefault != nil {
			args["isDefault"] = isDefault
		}
		return okID(t, s.Mutation(user, "customers.addresses.createAddress", args))
	}
	defaults := func() []string {
		var list []struct {
			ID        string `json:"_id"`
			IsDefault bool   `json:"isDefault"`
		}
		st.MustOK(t, s.Query(user, "customers.addresses.getCustomerAddresses", nil)).Decode(t, &list)
		var out []string
		for _, a := range list {
			if a.IsDefault {
				out = append(out, a.ID)
			}
		}
		return out
	}
	first := create("Cabin", false)
	if d := defaults(); len(d) != 0 {
		t.Fatalf("isDefault false on the first address still made a default: %v", d)
	}
	second := create("Flat", nil) // no default yet: this one becomes it
	if d := defaults(); len(d) != 1 || d[0] != second {
		t.Fatalf("defaults %v, want [%s]", d, second)
	}
	st.MustOK(t, s.Mutation(user, "customers.addresses.updateAddress", map[string]any{"addressId": second, "isDefault": false}))
	if d := defaults(); len(d) != 0 {
		t.Fatalf("un-defaulting left %v", d)
	}
	st.MustOK(t, s.Mutation(user, "customers.addresses.setDefaultAddress", map[string]any{"addressId": first}))
	if d := defaults(); len(d) != 1 || d[0] != first {
		t.Fatalf("defaults %v, want [%s]", d, first)
	}
}

// TestAddressUpdatesRace: concurrent updates never leave an inactive default or
// an area outside its address's city, and concurrent first adds of one product
// to a cart all count.
func TestAddressUpdatesRace(t *testing.T) {
	s := st.Start(t)
	admin, user := s.Token("admin-1", "admin"), s.Token("user-1")
	dubai := okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"}))
	sharjah := okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Sharjah", "nameArabic": "الشارقة"}))
	deira := okID(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": "Deira", "city": dubai}))
	nahda := okID(t, s.Mutation(admin, "admins.catalog.createArea", map[string]any{"name": "Al Nahda", "city": sharjah}))
	customer := okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Sara"}))
	create := func(name string) string {
		return okID(t, s.Mutation(user, "customers.addresses.createAddress", map[string]any{
			"customerId": customer, "name": name, "fullAddress": name, "city": dubai, "area": deira}))
	}
	for round := 0; round < 15; round++ {
		b := create("B")
		a := create("A")
		st.MustOK(t, s.Mutation(user, "customers.addresses.setDefaultAddress", map[string]any{"addressId": b}))
		var wg sync.WaitGroup
		wg.Add(4)
		go func() {
			defer wg.Done()
			s.Mutation(user, "customers.addresses.updateAddress", map[string]any{"addressId": a, "isDefault": true})
		}()
		go func() {
			defer wg.Done()
			s.Mutation(user, "customers.addresses.updateAddress", map[string]any{"addressId": a, "isActive": false})
		}()
		go func() {
			defer wg.Done()
			s.Mutation(user, "customers.addresses.updateAddress", map[string]any{"addressId": b, "city": sharjah, "area": nahda})
		}()
		go func() {
			defer wg.Done()
			s.Mutation(user, "customers.addresses.updateAddress", map[string]any{"addressId": b, "area": deira})
		}()
		wg.Wait()
		for _, id := range []string{a, b} {
			var ad struct {
				IsDefault, IsActive bool
				City                struct {
					ID string `json:"_id"`
				} `json:"city"`
				Area struct{ City string } `json:"area"`
			}
			st.MustOK(t, s.Query(user, "customers.addresses.getAddress", map[string]any{"addressId": id})).Decode(t, &ad)
			if ad.IsDefault && !ad.IsActive {
				t.Fatalf("round %d: %s is an inactive default", round, id)
			}
			if ad.Area.City != ad.City.ID {
				t.Fatalf("round %d: %s has an area of another city: %+v", round, id, ad)
			}
		}
		for _, id := range []string{a, b} {
			st.MustOK(t, s.Mutation(user, "customers.addresses.deleteAddress", map[string]any{"addressId": id}))
		}
	}

	owner := s.Token("owner-1")
	store := newStore(t, s, admin, "Corner", "owner-1", "", "")
	product := okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": "Milk", "price": 6.5}))
	if ok := st.CountOK(t, st.Concurrently(8, func(int) st.Result {
		return s.Mutation(user, "customers.cart.addItem", map[string]any{"productId": product, "quantity": 2})
	}), "FAILED_PRECONDITION"); ok != 8 {
		t.Fatalf("%d of 8 concurrent adds succeeded", ok)
	}
	var cart struct {
		Items []struct{ Quantity int } `json:"items"`
	}
	st.MustOK(t, s.Query(user, "customers.cart.getMyCart", nil)).Decode(t, &cart)
	if len(cart.Items) != 1 || cart.Items[0].Quantity != 16 {
		t.Fatalf("8 concurrent adds of 2: %+v", cart.Items)
	}
}
