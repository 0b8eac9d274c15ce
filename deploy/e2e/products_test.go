package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/services/catalog"
)

// A store's products in pages, and the cap on a store's products (issue 29,
// item 6; docs/adr/0025-products.md).

type productPage struct {
	Page           []productView `json:"page"`
	IsDone         bool          `json:"isDone"`
	ContinueCursor string        `json:"continueCursor"`
}

func productsPage(t testing.TB, s *st.Sys, store string, n int, cursor any) productPage {
	t.Helper()
	return okAs[productPage](t, s.Query("", "stores.products.listProductsPaginated",
		map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": n, "cursor": cursor}}))
}

// allProducts reads every page of a store's products, n at a time, and says
// how many pages it took.
func allProducts(t testing.TB, s *st.Sys, store string, n int) ([]productView, int) {
	t.Helper()
	var out []productView
	var cursor any
	for pages := 1; ; pages++ {
		p := productsPage(t, s, store, n, cursor)
		out = append(out, p.Page...)
		if p.IsDone {
			return out, pages
		}
		if len(p.Page) == 0 || pages > 10_000 {
			t.Fatalf("page %d: empty, not done: %+v", pages, p)
		}
		cursor = p.ContinueCursor
	}
}

func idsOfProducts(ps []productView) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// TestProductsPaginated: listProductsPaginated pages a store's products in the
// order they were added, anonymously, in the interface's pagination shape;
// pages never repeat or skip a product added between them; a page holds at
// most 100; the deprecated listProducts answers the same products as one
// array.
func TestProductsPaginated(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner := s.Token("owner-pages")
	store := newStore(t, s, admin, "Pages", "owner-pages", "", "")
	other := newStore(t, s, admin, "Elsewhere", "owner-else", "", "")
	okID(t, s.Mutation(s.Token("owner-else"), "stores.products.createProduct", map[string]any{"storeId": other, "name": "Not here", "price": 1}))

	empty := productsPage(t, s, store, 10, nil)
	if len(empty.Page) != 0 || !empty.IsDone {
		t.Fatalf("an empty store's first page: %+v", empty)
	}
	// Products are in creation order (milliseconds; ties by id, which are
	// random): a millisecond apart, their order is the order they were added.
	var want []string
	for i := range 7 {
		time.Sleep(2 * time.Millisecond)
		want = append(want, okID(t, s.Mutation(owner, "stores.products.createProduct",
			map[string]any{"storeId": store, "name": fmt.Sprintf("Item %d", i), "price": 1 + i})))
	}
	// The answer's shape: page, isDone, continueCursor, each product as listProducts shows it.
	var raw map[string]json.RawMessage
	r := s.Query("", "stores.products.listProductsPaginated", map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 3, "cursor": nil}})
	st.MustOK(t, r)
	r.Decode(t, &raw)
	for _, k := range []string{"page", "isDone", "continueCursor"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("page without %s: %s", k, r.Body)
		}
	}
	first := productsPage(t, s, store, 3, nil)
	if got := idsOfProducts(first.Page); !slices.Equal(got, want[:3]) || first.IsDone || first.ContinueCursor == "" {
		t.Fatalf("first page of 3: %v done %v cursor %q; want %v", got, first.IsDone, first.ContinueCursor, want[:3])
	}
	// Added between pages: it comes last, once.
	time.Sleep(2 * time.Millisecond)
	want = append(want, okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": "Late", "price": 2})))
	second := productsPage(t, s, store, 3, first.ContinueCursor)
	third := productsPage(t, s, store, 3, second.ContinueCursor)
	got := idsOfProducts(slices.Concat(first.Page, second.Page, third.Page))
	if !slices.Equal(got, want) || second.IsDone || !third.IsDone {
		t.Errorf("pages of 3: %v (done %v, %v); want %v", got, second.IsDone, third.IsDone, want)
	}
	all, pages := allProducts(t, s, store, 2)
	if !slices.Equal(idsOfProducts(all), want) || pages != 4 {
		t.Errorf("pages of 2: %d pages, %v; want 4 pages of %v", pages, idsOfProducts(all), want)
	}
	for _, p := range all {
		if p.StoreID != store || p.Name == "" || p.Price <= 0 || !p.IsAvailable {
			t.Errorf("product as listed: %+v", p)
		}
	}
	// The deprecated one-array answer: the same products in the same order.
	old := okAs[[]productView](t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": store}))
	if !slices.Equal(old, all) {
		t.Errorf("listProducts %+v; pages %+v", old, all)
	}

	t.Run("refusals", func(t *testing.T) {
		page := func(args map[string]any) st.Result {
			return s.Query("", "stores.products.listProductsPaginated", args)
		}
		opts := map[string]any{"numItems": 5, "cursor": nil}
		expectError(t, page(map[string]any{"storeId": missingLike(store), "paginationOpts": opts}), "NOT_FOUND")
		expectError(t, page(map[string]any{"storeId": "x", "paginationOpts": opts}), "INVALID_ARGUMENT", "storeId")
		expectError(t, page(map[string]any{"storeId": store}), "INVALID_ARGUMENT", "paginationOpts")
		expectError(t, page(map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 0, "cursor": nil}}), "INVALID_ARGUMENT", "numItems")
		expectError(t, page(map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 5, "cursor": "not-a-cursor"}}), "INVALID_ARGUMENT", "cursor")
		// Another query's cursor (stores by name) is not this one's.
		stores := okAs[struct {
			ContinueCursor string `json:"continueCursor"`
		}](t, s.Query("", "catalog.stores.listStores", map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": nil}}))
		expectError(t, page(map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 5, "cursor": stores.ContinueCursor}}), "INVALID_ARGUMENT", "cursor")
	})
}

// TestProductsPerStoreCap: a store keeps at most catalog.MaxProductsPerStore
// products. Creates racing at the cap pass it together never (exactly the
// room left succeeds); past it createProduct is FAILED_PRECONDITION (reason
// too_many_products) and writes nothing; another store is not affected; the
// deprecated one-array listProducts answers the whole capped list, and the
// pages (at most 100 each) the same.
func TestProductsPerStoreCap(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner := s.Token("owner-full")
	store := newStore(t, s, admin, "Warehouse", "owner-full", "", "")
	other := newStore(t, s, admin, "Corner shop", "owner-full", "", "")
	create := func(store string, i int) st.Result {
		return s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": fmt.Sprintf("Item %d", i), "price": 1})
	}
	const room = 10
	fill := catalog.MaxProductsPerStore - room
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				st.MustOK(t, create(store, i))
			}
		}()
	}
	for i := range fill {
		next <- i
	}
	close(next)
	wg.Wait()

	// 3 x room creates at once for the last room places.
	results := make([]st.Result, 3*room)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = create(store, fill+i)
		}()
	}
	wg.Wait()
	created := 0
	for _, r := range results {
		if r.Status == 200 {
			created++
			continue
		}
		expectError(t, r, "FAILED_PRECONDITION", fmt.Sprint(catalog.MaxProductsPerStore), "products")
		if reason := errorReason(t, r); reason != "too_many_products" {
			t.Errorf("details.reason %q: %s", reason, r.Body)
		}
	}
	if created != room {
		t.Errorf("%d of %d creates at the cap succeeded; want exactly the %d places left", created, len(results), room)
	}
	r := create(store, -1)
	expectError(t, r, "FAILED_PRECONDITION", "at most")

	old := okAs[[]productView](t, s.Query("", "stores.products.listProducts", map[string]any{"storeId": store}))
	if len(old) != catalog.MaxProductsPerStore {
		t.Errorf("listProducts answers %d products; the store keeps %d", len(old), catalog.MaxProductsPerStore)
	}
	all, pages := allProducts(t, s, store, 1000)
	if len(all) != catalog.MaxProductsPerStore || pages != catalog.MaxProductsPerStore/100 {
		t.Errorf("numItems 1000: %d products in %d pages; want %d in pages of 100", len(all), pages, catalog.MaxProductsPerStore)
	}
	if !slices.Equal(idsOfProducts(all), idsOfProducts(old)) {
		t.Error("the pages and listProducts disagree")
	}
	// The cap is per store, and changing a product still works.
	okID(t, create(other, 0))
	st.MustOK(t, s.Mutation(owner, "stores.products.updateProduct", map[string]any{"productId": old[0].ID, "name": "Renamed"}))
}

// errorReason is an error answer's details.reason.
func errorReason(t testing.TB, r st.Result) string {
	t.Helper()
	var e struct {
		Error struct {
			Details struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	r.Decode(t, &e)
	return e.Error.Details.Reason
}
