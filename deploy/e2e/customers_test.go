package e2e

import (
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

// Tests of the customers service: profiles (customers.profile.*) and carts
// (customers.cart.*), platform contract section 4.

const (
	opUpsertProfile = "customers.profile.upsertMyProfile"
	opGetProfile    = "customers.profile.getMyProfile"
	opAddItem       = "customers.cart.addItem"
	opGetCart       = "customers.cart.getMyCart"
	opRemoveItem    = "customers.cart.removeItem"
)

type profileView struct {
	ID     string  `json:"_id"`
	UserID string  `json:"userId"`
	Name   string  `json:"name"`
	Phone  *string `json:"phone"`
	Email  *string `json:"email"`
}

type cartLine struct {
	ID        string  `json:"_id"`
	ProductID string  `json:"productId"`
	StoreID   string  `json:"storeId"`
	Name      string  `json:"name"`
	UnitPrice float64 `json:"unitPrice"`
	Quantity  int     `json:"quantity"`
}

type cartView struct {
	Items    []cartLine `json:"items"`
	Subtotal float64    `json:"subtotal"`
}

// newProfile gives the token's user a customer profile and returns its id.
func newProfile(t testing.TB, s *st.Sys, token, name string) string {
	t.Helper()
	return okID(t, s.Mutation(token, opUpsertProfile, map[string]any{"name": name}))
}

func myProfile(t testing.TB, s *st.Sys, token string) *profileView {
	t.Helper()
	return okAs[*profileView](t, s.Query(token, opGetProfile, nil))
}

// myCart is the caller's cart (one store's part when storeID is not ""), after
// checking each line carries the contract's fields.
func myCart(t testing.TB, s *st.Sys, token string, storeID string) cartView {
	t.Helper()
	var args map[string]any
	if storeID != "" {
		args = map[string]any{"storeId": storeID}
	}
	r := s.Query(token, opGetCart, args)
	raw := okAs[struct {
		Items    []map[string]any `json:"items"`
		Subtotal *float64         `json:"subtotal"`
	}](t, r)
	if raw.Items == nil || raw.Subtotal == nil {
		t.Fatalf("cart without items array or subtotal: %s", r.Body)
	}
	for _, line := range raw.Items {
		requireKeys(t, "cart item", line, "_id", "productId", "storeId", "name", "unitPrice", "quantity")
	}
	return okAs[cartView](t, r)
}

func lineOf(c cartView, productID string) *cartLine {
	for i := range c.Items {
		if c.Items[i].ProductID == productID {
			return &c.Items[i]
		}
	}
	return nil
}

func strp(s string) *string { return &s }

// TestCustomerProfiles covers upsertMyProfile and getMyProfile.
func TestCustomerProfiles(t *testing.T) {
	s := st.Start(t)
	alice := s.Token("user-alice")

	t.Run("every operation needs a token", func(t *testing.T) {
		calls := []opCall{
			{"mutation", opUpsertProfile, map[string]any{"name": "X"}},
			{"query", opGetProfile, nil},
			{"mutation", opAddItem, map[string]any{"productId": "prd_000000000000000000000000", "quantity": 1}},
			{"query", opGetCart, nil},
			{"mutation", opRemoveItem, map[string]any{"itemId": "crt_000000000000000000000000"}},
		}
		expectAllNeedToken(t, s, calls)
		if p := myProfile(t, s, alice); p != nil {
			t.Errorf("a refused upsert created a profile: %+v", p)
		}
	})

	t.Run("getMyProfile is null before the first upsert", func(t *testing.T) {
		r := st.MustOK(t, s.Query(alice, opGetProfile, nil))
		if strings.TrimSpace(string(r.Body)) != "null" {
			t.Errorf("want null, got %s", r.Body)
		}
	})

	t.Run("invalid arguments create nothing", func(t *testing.T) {
		cases := []struct {
			name  string
			args  any
			field string
		}{
			{"no args", nil, "name"},
			{"missing name", map[string]any{"email": "a@example.com"}, "name"},
			{"blank name", map[string]any{"name": "   "}, "name"},
			{"empty name", map[string]any{"name": ""}, "name"},
			{"name not a string", map[string]any{"name": 3}, "name"},
			{"email without domain", map[string]any{"name": "A", "email": "alice@"}, "email"},
			{"email without @", map[string]any{"name": "A", "email": "alice.example.com"}, "email"},
			{"email with display name", map[string]any{"name": "A", "email": "Alice <alice@example.com>"}, "email"},
			{"email with spaces inside", map[string]any{"name": "A", "email": "ali ce@example.com"}, "email"},
			{"blank email", map[string]any{"name": "A", "email": "  "}, "email"},
			{"email not a string", map[string]any{"name": "A", "email": 5}, "email"},
			{"unknown argument", map[string]any{"name": "A", "userId": "someone-else"}, "userId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Mutation(alice, opUpsertProfile, c.args), "INVALID_ARGUMENT", c.field)
			})
		}
		if p := myProfile(t, s, alice); p != nil {
			t.Errorf("an invalid upsert created a profile: %+v", p)
		}
	})

	var aliceID string
	t.Run("first call creates the profile", func(t *testing.T) {
		aliceID = okID(t, s.Mutation(alice, opUpsertProfile, map[string]any{"name": " Alice ", "phone": "+971501111111", "email": "alice@example.com"}))
		if !strings.HasPrefix(aliceID, "cus_") {
			t.Errorf("profile id %q is not a customers id", aliceID)
		}
		r := s.Query(alice, opGetProfile, nil)
		requireKeys(t, "profile", okAs[map[string]any](t, r), "_id", "userId", "name", "_creationTime")
		p := okAs[profileView](t, r)
		if p.ID != aliceID || p.UserID != "user-alice" || p.Name != "Alice" || p.Phone == nil || *p.Phone != "+971501111111" ||
			p.Email == nil || *p.Email != "alice@example.com" {
			t.Errorf("profile: %+v", p)
		}
	})

	t.Run("second call updates the same profile", func(t *testing.T) {
		id := okID(t, s.Mutation(alice, opUpsertProfile, map[string]any{"name": "Alice Smith", "email": "a.smith@example.org"}))
		if id != aliceID {
			t.Fatalf("second upsert returned %s, first %s", id, aliceID)
		}
		p := myProfile(t, s, alice)
		if p == nil || p.ID != aliceID || p.Name != "Alice Smith" || p.Email == nil || *p.Email != "a.smith@example.org" ||
			p.Phone == nil || *p.Phone != "+971501111111" {
			t.Errorf("after update (phone not given, so kept): %+v", p)
		}
	})

	t.Run("a refused update changes nothing", func(t *testing.T) {
		expectError(t, s.Mutation(alice, opUpsertProfile, map[string]any{"name": "Mallory", "email": "not-an-email"}), "INVALID_ARGUMENT", "email")
		expectError(t, s.Mutation(alice, opUpsertProfile, map[string]any{"name": " "}), "INVALID_ARGUMENT", "name")
		if p := myProfile(t, s, alice); p == nil || p.Name != "Alice Smith" || *p.Email != "a.smith@example.org" {
			t.Errorf("profile changed by a refused update: %+v", p)
		}
	})

	t.Run("each user has their own profile", func(t *testing.T) {
		bob := s.Token("user-bob")
		if p := myProfile(t, s, bob); p != nil {
			t.Fatalf("bob sees a profile before creating one: %+v", p)
		}
		bobID := newProfile(t, s, bob, "Bob")
		if bobID == aliceID {
			t.Fatal("bob got alice's profile id")
		}
		if p := myProfile(t, s, bob); p == nil || p.ID != bobID || p.UserID != "user-bob" || p.Name != "Bob" {
			t.Errorf("bob's profile: %+v", p)
		}
		if p := myProfile(t, s, alice); p == nil || p.ID != aliceID || p.Name != "Alice Smith" {
			t.Errorf("alice's profile after bob's: %+v", p)
		}
	})

	t.Run("concurrent first calls by one user make one profile", func(t *testing.T) {
		const n = 10
		carol := s.Token("user-carol")
		results := st.Concurrently(n, func(int) st.Result {
			return s.Mutation(carol, opUpsertProfile, map[string]any{"name": "Carol"})
		})
		first := okID(t, results[0])
		for i, r := range results {
			if id := okID(t, r); id != first {
				t.Errorf("call %d returned %s, call 0 returned %s", i, id, first)
			}
		}
		if p := myProfile(t, s, carol); p == nil || p.ID != first {
			t.Errorf("carol's profile %+v, calls returned %s", p, first)
		}
		// One more call still finds that one profile.
		if id := okID(t, s.Mutation(carol, opUpsertProfile, map[string]any{"name": "Carol B"})); id != first {
			t.Errorf("later upsert returned %s, want %s", id, first)
		}
	})
}

// TestCustomerCart covers addItem, getMyCart and removeItem.
func TestCustomerCart(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner1, owner2 := s.Token("owner-1"), s.Token("owner-2")
	bakery := newStore(t, s, admin, "Bakery", "owner-1", "", "")
	grocer := newStore(t, s, admin, "Grocer", "owner-2", "", "")
	product := func(owner, store, name string, price float64, available bool) string {
		t.Helper()
		return okID(t, s.Mutation(owner, "stores.products.createProduct",
			map[string]any{"storeId": store, "name": name, "price": price, "isAvailable": available}))
	}
	bread := product(owner1, bakery, "Bread", 12.35, true)
	cake := product(owner1, bakery, "Cake", 7.1, true)
	stale := product(owner1, bakery, "Yesterday's Cake", 3, false)
	apple := product(owner2, grocer, "Apple", 0.1, true)
	milk := product(owner2, grocer, "Milk", 4.95, true)

	alice, bob := s.Token("user-alice"), s.Token("user-bob")
	nobody := s.Token("user-nobody") // never creates a profile
	newProfile(t, s, alice, "Alice")
	newProfile(t, s, bob, "Bob")

	add := func(token, productID string, qty any) st.Result {
		return s.Mutation(token, opAddItem, map[string]any{"productId": productID, "quantity": qty})
	}

	t.Run("no profile: empty cart, and adding is refused", func(t *testing.T) {
		r := st.MustOK(t, s.Query(nobody, opGetCart, nil))
		m := r.Map(t)
		if items, ok := m["items"].([]any); !ok || len(items) != 0 || m["subtotal"] != float64(0) {
			t.Errorf("want {items:[], subtotal:0}, got %s", r.Body)
		}
		expectError(t, add(nobody, bread, 1), "FAILED_PRECONDITION")
		expectError(t, s.Mutation(nobody, opRemoveItem, map[string]any{"itemId": "crt_000000000000000000000000"}), "FAILED_PRECONDITION")
		if p := myProfile(t, s, nobody); p != nil {
			t.Errorf("addItem created a profile: %+v", p)
		}
	})

	t.Run("empty cart of a customer", func(t *testing.T) {
		r := st.MustOK(t, s.Query(alice, opGetCart, nil))
		m := r.Map(t)
		if items, ok := m["items"].([]any); !ok || len(items) != 0 || m["subtotal"] != float64(0) {
			t.Errorf("want {items:[], subtotal:0}, got %s", r.Body)
		}
	})

	t.Run("the client cannot send a price or a name", func(t *testing.T) {
		expectError(t, s.Mutation(alice, opAddItem, map[string]any{"productId": bread, "quantity": 1, "price": 0.01}), "INVALID_ARGUMENT", "price")
		expectError(t, s.Mutation(alice, opAddItem, map[string]any{"productId": bread, "quantity": 1, "unitPrice": 0.01}), "INVALID_ARGUMENT", "unitPrice")
		expectError(t, s.Mutation(alice, opAddItem, map[string]any{"productId": bread, "quantity": 1, "name": "Free"}), "INVALID_ARGUMENT", "name")
		if c := myCart(t, s, alice, ""); len(c.Items) != 0 {
			t.Errorf("a refused add was stored: %+v", c)
		}
	})

	t.Run("missing, malformed and unavailable products", func(t *testing.T) {
		expectError(t, add(alice, missingLike(bread), 1), "NOT_FOUND")
		expectError(t, add(alice, "bread", 1), "INVALID_ARGUMENT", "productId")
		expectError(t, add(alice, bakery, 1), "INVALID_ARGUMENT", "productId") // a store id
		expectError(t, s.Mutation(alice, opAddItem, map[string]any{"quantity": 1}), "INVALID_ARGUMENT", "productId")
		expectError(t, add(alice, stale, 1), "FAILED_PRECONDITION")
		if c := myCart(t, s, alice, ""); len(c.Items) != 0 {
			t.Errorf("a refused add was stored: %+v", c)
		}
	})

	t.Run("quantity is a whole number from 1 to 99", func(t *testing.T) {
		for _, q := range []any{0, -1, 1.5, 100, 1000, "2", true, nil} {
			expectError(t, add(alice, bread, q), "INVALID_ARGUMENT", "quantity")
		}
		expectError(t, s.Mutation(alice, opAddItem, map[string]any{"productId": bread}), "INVALID_ARGUMENT", "quantity")
		if c := myCart(t, s, alice, ""); len(c.Items) != 0 {
			t.Errorf("a refused add was stored: %+v", c)
		}
	})

	var breadLine string
	t.Run("price and name come from the catalog", func(t *testing.T) {
		breadLine = okID(t, add(alice, bread, 2))
		if !strings.HasPrefix(breadLine, "crt_") {
			t.Errorf("cart item id %q", breadLine)
		}
		c := myCart(t, s, alice, "")
		want := cartLine{ID: breadLine, ProductID: bread, StoreID: bakery, Name: "Bread", UnitPrice: 12.35, Quantity: 2}
		if len(c.Items) != 1 || c.Items[0] != want {
			t.Fatalf("cart: %+v, want one line %+v", c, want)
		}
		if c.Subtotal != 24.7 {
			t.Errorf("subtotal %v, want 24.7", c.Subtotal)
		}
	})

	t.Run("adding the same product again increases its quantity", func(t *testing.T) {
		if id := okID(t, add(alice, bread, 1)); id != breadLine {
			t.Fatalf("second add made line %s, first %s", id, breadLine)
		}
		c := myCart(t, s, alice, "")
		if len(c.Items) != 1 || c.Items[0].ID != breadLine || c.Items[0].Quantity != 3 || c.Items[0].UnitPrice != 12.35 {
			t.Errorf("cart: %+v", c)
		}
	})

	t.Run("items of several stores, subtotal exact, filter by store", func(t *testing.T) {
		cakeLine := okID(t, add(alice, cake, 2))
		appleLine := okID(t, add(alice, apple, 3))
		milkLine := okID(t, add(alice, milk, 7))
		c := myCart(t, s, alice, "")
		want := map[string]cartLine{
			bread: {breadLine, bread, bakery, "Bread", 12.35, 3},
			cake:  {cakeLine, cake, bakery, "Cake", 7.1, 2},
			apple: {appleLine, apple, grocer, "Apple", 0.1, 3},
			milk:  {milkLine, milk, grocer, "Milk", 4.95, 7},
		}
		if len(c.Items) != len(want) {
			t.Fatalf("cart: %+v", c)
		}
		for p, w := range want {
			if l := lineOf(c, p); l == nil || *l != w {
				t.Errorf("line of %s: %+v, want %+v", p, l, w)
			}
		}
		// 12.35×3 + 7.10×2 + 0.10×3 + 4.95×7 = 37.05 + 14.20 + 0.30 + 34.65
		if c.Subtotal != 86.2 {
			t.Errorf("subtotal %v, want exactly 86.2", c.Subtotal)
		}
		b := myCart(t, s, alice, bakery)
		if len(b.Items) != 2 || lineOf(b, bread) == nil || lineOf(b, cake) == nil || b.Subtotal != 51.25 {
			t.Errorf("bakery part: %+v, want bread and cake, subtotal 51.25", b)
		}
		g := myCart(t, s, alice, grocer)
		if len(g.Items) != 2 || lineOf(g, apple) == nil || lineOf(g, milk) == nil || g.Subtotal != 34.95 {
			t.Errorf("grocer part: %+v, want apple and milk, subtotal 34.95", g)
		}
		other := newStore(t, s, admin, "Empty", "owner-3", "", "")
		if e := myCart(t, s, alice, other); len(e.Items) != 0 || e.Subtotal != 0 {
			t.Errorf("a store with nothing in the cart: %+v", e)
		}
		// A filter naming a missing store is NOT_FOUND, not an empty cart.
		expectError(t, s.Query(alice, opGetCart, map[string]any{"storeId": missingLike(grocer)}), "NOT_FOUND")
		expectError(t, s.Query(nobody, opGetCart, map[string]any{"storeId": missingLike(grocer)}), "NOT_FOUND")
		if e := myCart(t, s, nobody, grocer); len(e.Items) != 0 || e.Subtotal != 0 {
			t.Errorf("no profile, existing store: %+v", e)
		}
		expectError(t, s.Query(alice, opGetCart, map[string]any{"storeId": "bakery"}), "INVALID_ARGUMENT", "storeId")
		expectError(t, s.Query(alice, opGetCart, map[string]any{"storeId": bread}), "INVALID_ARGUMENT", "storeId")
		// Bob's cart is his own.
		if bc := myCart(t, s, bob, ""); len(bc.Items) != 0 || bc.Subtotal != 0 {
			t.Errorf("bob sees items: %+v", bc)
		}
	})

	t.Run("a line holds at most 99", func(t *testing.T) {
		line := okID(t, add(bob, cake, 50))
		expectError(t, add(bob, cake, 50), "FAILED_PRECONDITION")
		if l := lineOf(myCart(t, s, bob, ""), cake); l == nil || l.Quantity != 50 {
			t.Fatalf("after a refused add: %+v, want 50", l)
		}
		if id := okID(t, add(bob, cake, 49)); id != line {
			t.Errorf("line changed: %s, want %s", id, line)
		}
		expectError(t, add(bob, cake, 1), "FAILED_PRECONDITION")
		c := myCart(t, s, bob, "")
		if l := lineOf(c, cake); len(c.Items) != 1 || l == nil || l.Quantity != 99 || l.ID != line {
			t.Errorf("after the cap: %+v, want one line of 99", c)
		}
		if c.Subtotal != 702.9 { // 7.10 × 99
			t.Errorf("subtotal %v, want 702.9", c.Subtotal)
		}
		// 99 at once on a fresh line is allowed.
		okID(t, add(bob, milk, 99))
		if l := lineOf(myCart(t, s, bob, ""), milk); l == nil || l.Quantity != 99 {
			t.Errorf("99 at once: %+v", l)
		}
	})

	t.Run("concurrent adds never pass 99", func(t *testing.T) {
		carol := s.Token("user-carol")
		newProfile(t, s, carol, "Carol")
		const n = 10
		ok := st.CountOK(t, st.Concurrently(n, func(int) st.Result { return add(carol, milk, 10) }), "FAILED_PRECONDITION")
		c := myCart(t, s, carol, "")
		if ok != 9 || len(c.Items) != 1 || c.Items[0].Quantity != 90 || c.Subtotal != 445.5 {
			t.Errorf("%d of 10 adds of 10 succeeded, cart %+v; want 9, one line of 90, subtotal 445.5", ok, c)
		}
	})

	t.Run("removeItem", func(t *testing.T) {
		expectError(t, s.Mutation(bob, opRemoveItem, map[string]any{"itemId": breadLine}), "PERMISSION_DENIED")
		if l := lineOf(myCart(t, s, alice, ""), bread); l == nil || l.ID != breadLine {
			t.Fatalf("another customer's refused remove took the line: %+v", l)
		}
		expectError(t, s.Mutation(alice, opRemoveItem, map[string]any{"itemId": missingLike(breadLine)}), "NOT_FOUND")
		expectError(t, s.Mutation(alice, opRemoveItem, map[string]any{"itemId": "line-1"}), "INVALID_ARGUMENT", "itemId")
		expectError(t, s.Mutation(alice, opRemoveItem, map[string]any{"itemId": bread}), "INVALID_ARGUMENT", "itemId")
		expectError(t, s.Mutation(alice, opRemoveItem, nil), "INVALID_ARGUMENT", "itemId")

		r := st.MustOK(t, s.Mutation(alice, opRemoveItem, map[string]any{"itemId": breadLine}))
		if strings.TrimSpace(string(r.Body)) != "null" {
			t.Errorf("removeItem returned %s, want null", r.Body)
		}
		c := myCart(t, s, alice, "")
		if len(c.Items) != 3 || lineOf(c, bread) != nil {
			t.Errorf("after remove: %+v", c)
		}
		if c.Subtotal != 49.15 { // 14.20 + 0.30 + 34.65
			t.Errorf("subtotal after remove %v, want 49.15", c.Subtotal)
		}
		expectError(t, s.Mutation(alice, opRemoveItem, map[string]any{"itemId": breadLine}), "NOT_FOUND")
		// Adding the product again starts a new line at the new quantity.
		again := okID(t, add(alice, bread, 1))
		if again == breadLine {
			t.Errorf("a removed line came back: %s", again)
		}
		if l := lineOf(myCart(t, s, alice, ""), bread); l == nil || l.Quantity != 1 {
			t.Errorf("re-added line: %+v", l)
		}
	})
}
