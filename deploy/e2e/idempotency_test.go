package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
)

// Idempotency keys (platform contract section 2), through the gateway: a
// mutation with an Idempotency-Key runs once per caller and key; a replay gets
// the kept status and body; other arguments or another operation under the key
// are refused; twins that race run once.

const (
	headerIdemKey    = "Idempotency-Key"
	headerIdemReplay = "Idempotent-Replayed"
)

// keyed posts a mutation with an Idempotency-Key header, sent even when empty
// (systemtest's Do leaves empty headers out).
func keyed(t testing.TB, s *st.Sys, token, key, path string, args any) st.Result {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"path": path, "args": args})
	req, err := http.NewRequest("POST", s.BaseURL+"/api/mutation", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header[headerIdemKey] = []string{key}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return st.Result{Status: resp.StatusCode, Body: body, Header: resp.Header}
}

// keyedAnswer is keyed asked again under the same key, as the contract
// tells a client to, while its answer says the call may not have run yet:
// UNAVAILABLE (the gateway stopped waiting for a busy service, which may
// still apply it) or idempotency_key_in_use (the first call still runs). Its
// answer is then the call's own, applied once: calls that race on one wallet
// keep their answers on a machine too busy to give them all within the
// gateway's upstream timeout (a CI run under load once got 503s).
func keyedAnswer(t testing.TB, s *st.Sys, token, key, path string, args any) st.Result {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		r := keyed(t, s, token, key, path, args)
		if r.Code() != "UNAVAILABLE" && reasonOf(r) != ops.ReasonIdempotencyKeyInUse {
			return r
		}
		if time.Now().After(deadline) { // (Errorf: callers run it on goroutines of their own)
			t.Errorf("%s under key %s: still unanswered after 2 minutes: %d %s", path, key, r.Status, r.Body)
			return r
		}
	}
}

// reasonOf is an error answer's details.reason ("" when it has none).
func reasonOf(r st.Result) string {
	var e struct {
		Error struct {
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	reason, _ := e.Error.Details["reason"].(string)
	return reason
}

func replayed(r st.Result) bool { return r.Header.Get(headerIdemReplay) == "true" }

// expectReason checks an error answer's code, status and details.reason.
func expectReason(t testing.TB, r st.Result, code, reason string) {
	t.Helper()
	expectError(t, r, code)
	if reasonOf(r) != reason {
		t.Errorf("want details.reason %s, got %s", reason, r.Body)
	}
}

func TestIdempotencyKeys(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner := s.Token("owner-1")
	store := newStore(t, s, admin, "Bakery", "owner-1", "", "")
	product := func(name string) string {
		return okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": name, "price": 5}))
	}
	bread, cake, milk := product("Bread"), product("Cake"), product("Milk")
	alice, bob := s.Token("user-alice"), s.Token("user-bob")
	newProfile(t, s, alice, "Alice")
	newProfile(t, s, bob, "Bob")
	quantity := func(token, productID string) int {
		t.Helper()
		if l := lineOf(myCart(t, s, token, ""), productID); l != nil {
			return l.Quantity
		}
		return 0
	}
	add := func(token, key, productID string, qty int) st.Result {
		t.Helper()
		return keyed(t, s, token, key, opAddItem, map[string]any{"productId": productID, "quantity": qty})
	}

	t.Run("a replay answers the kept outcome and changes nothing", func(t *testing.T) {
		first := add(alice, "add-bread-1", bread, 2)
		st.MustOK(t, first)
		if replayed(first) {
			t.Error("the first call is marked replayed")
		}
		again := add(alice, "add-bread-1", bread, 2)
		if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || !replayed(again) {
			t.Fatalf("replay: %d %s (replayed %q), first %d %s", again.Status, again.Body, again.Header.Get(headerIdemReplay), first.Status, first.Body)
		}
		if q := quantity(alice, bread); q != 2 {
			t.Fatalf("two calls with one key: quantity %d, want 2", q)
		}
		// Without a key the same call adds again (the key is what makes it once).
		okID(t, s.Mutation(alice, opAddItem, map[string]any{"productId": bread, "quantity": 2}))
		if q := quantity(alice, bread); q != 4 {
			t.Fatalf("a call without a key: quantity %d, want 4", q)
		}

		city := keyed(t, s, admin, "city-1", "admins.catalog.createCity", map[string]any{"name": "Sharjah", "nameArabic": "الشارقة"})
		st.MustOK(t, city)
		cityAgain := keyed(t, s, admin, "city-1", "admins.catalog.createCity", map[string]any{"nameArabic": "الشارقة", "name": "Sharjah"})
		if cityAgain.Status != 200 || !bytes.Equal(cityAgain.Body, city.Body) || !replayed(cityAgain) {
			t.Fatalf("createCity replay: %d %s", cityAgain.Status, cityAgain.Body)
		}
		// An error outcome is kept and replayed as well.
		exists := keyed(t, s, admin, "city-2", "admins.catalog.createCity", map[string]any{"name": "sharjah", "nameArabic": "الشارقة"})
		expectError(t, exists, "ALREADY_EXISTS")
		existsAgain := keyed(t, s, admin, "city-2", "admins.catalog.createCity", map[string]any{"name": "sharjah", "nameArabic": "الشارقة"})
		if existsAgain.Status != exists.Status || !bytes.Equal(existsAgain.Body, exists.Body) || !replayed(existsAgain) {
			t.Fatalf("error replay: %d %s, first %d %s", existsAgain.Status, existsAgain.Body, exists.Status, exists.Body)
		}
		if cs := okAs[[]cityView](t, s.Query("", "catalog.locations.listCities", nil)); len(cs) != 1 {
			t.Fatalf("cities: %+v", cs)
		}
	})

	t.Run("the same key with other arguments or another operation is refused", func(t *testing.T) {
		st.MustOK(t, add(alice, "add-cake", cake, 1))
		expectReason(t, add(alice, "add-cake", cake, 3), "INVALID_ARGUMENT", "idempotency_key_reused")
		expectReason(t, add(alice, "add-cake", milk, 1), "INVALID_ARGUMENT", "idempotency_key_reused")
		line := lineOf(myCart(t, s, alice, ""), cake)
		expectReason(t, keyed(t, s, alice, "add-cake", opRemoveItem, map[string]any{"itemId": line.ID}), "INVALID_ARGUMENT", "idempotency_key_reused")
		if q := quantity(alice, cake); q != 1 {
			t.Fatalf("refused calls changed the cart: quantity %d", q)
		}
		if quantity(alice, milk) != 0 {
			t.Fatal("a refused call added milk")
		}
	})

	t.Run("keys are per caller", func(t *testing.T) {
		mine := add(bob, "add-bread-1", bread, 2) // alice's key, alice's arguments
		st.MustOK(t, mine)
		if replayed(mine) {
			t.Fatal("bob got alice's kept outcome")
		}
		if qb, qa := quantity(bob, bread), quantity(alice, bread); qb != 2 || qa != 4 {
			t.Fatalf("bob %d, alice %d", qb, qa)
		}
	})

	t.Run("twenty concurrent twins have one effect", func(t *testing.T) {
		results := st.Concurrently(20, func(int) st.Result { return add(bob, "twenty", milk, 1) })
		var body []byte
		fresh := 0
		for _, r := range results {
			if r.Status == 200 {
				if body != nil && !bytes.Equal(body, r.Body) {
					t.Errorf("two outcomes: %s and %s", body, r.Body)
				}
				body = r.Body
				if !replayed(r) {
					fresh++
				}
				continue
			}
			expectReason(t, r, "FAILED_PRECONDITION", "idempotency_key_in_use")
		}
		if fresh != 1 {
			t.Errorf("%d answers ran the mutation, want 1", fresh)
		}
		t.Logf("of 20 twins: 1 ran, %d replayed, %d in use", st.CountOK(t, results, "FAILED_PRECONDITION")-fresh, 20-st.CountOK(t, results, "FAILED_PRECONDITION"))
		if q := quantity(bob, milk); q != 1 {
			t.Fatalf("twenty twins: quantity %d, want 1", q)
		}
		if r := add(bob, "twenty", milk, 1); r.Status != 200 || !replayed(r) || (body != nil && !bytes.Equal(r.Body, body)) {
			t.Fatalf("after the twins: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a malformed key is refused", func(t *testing.T) {
		for _, bad := range []string{"", strings.Repeat("k", 256), "tab\there", "caf\u00e9"} {
			expectError(t, add(alice, bad, milk, 1), "INVALID_ARGUMENT", headerIdemKey)
		}
		if q := quantity(alice, milk); q != 0 {
			t.Fatalf("a refused call added milk: %d", q)
		}
		st.MustOK(t, add(alice, strings.Repeat("k", 255), milk, 1)) // the longest allowed
		// Queries ignore the header.
		st.MustOK(t, s.Do("POST", "/api/query", strings.NewReader(`{"path":"`+opGetCart+`"}`),
			map[string]string{"Authorization": "Bearer " + alice, headerIdemKey: "tab\there"}))
	})

	t.Run("browsers may send the header", func(t *testing.T) {
		r := s.Do("OPTIONS", "/api/mutation", nil, map[string]string{"Access-Control-Request-Headers": "idempotency-key"})
		if !strings.HasPrefix(r.Header.Get("Access-Control-Allow-Headers"), "Content-Type, Authorization, processor-signature") ||
			!strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), headerIdemKey) ||
			!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), headerIdemReplay) {
			t.Fatalf("CORS: %v", r.Header)
		}
	})
}
