package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// fakeCatalog answers the two operations StoreRef may call, as the catalog
// does over HTTP: getStoreContacts (unless refused: an older catalog that
// does not count the caller among its callers) and the public getStore.
type fakeCatalog struct {
	mu      sync.Mutex
	stores  map[string]StoreContact
	refused bool     // getStoreContacts answered as an unknown operation
	broken  bool     // getStoreContacts answered INTERNAL
	down    bool     // every call answered UNAVAILABLE
	calls   []string // the paths called, in order
	srv     *httptest.Server
	client  *Client
}

func newFakeCatalog(t *testing.T) *fakeCatalog {
	t.Helper()
	f := &fakeCatalog{stores: map[string]StoreContact{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.client = NewClient(ops.NewClient(f, nil, 2*time.Second))
	return f
}

func (f *fakeCatalog) Resolve(context.Context, string) (string, error) { return f.srv.URL, nil }

func (f *fakeCatalog) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Path string          `json:"path"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, req.Path)
	fail := func(e *apperr.Error) {
		status, body := apperr.Body(e)
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
	if f.down {
		fail(apperr.New(apperr.Unavailable, "catalog is restarting"))
		return
	}
	switch req.Path {
	case OpGetStoreContacts:
		if f.broken {
			fail(apperr.New(apperr.Internal, "internal error"))
			return
		}
		if f.refused {
			fail(apperr.New(apperr.NotFound, "unknown operation %s", req.Path).WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation}))
			return
		}
		var a StoreContactsArgs
		_ = json.Unmarshal(req.Args, &a)
		out := StoreContactsResult{Stores: map[string]StoreContact{}}
		for _, id := range a.StoreIDs {
			if st, ok := f.stores[id]; ok {
				out.Stores[id] = st
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case OpGetStore:
		var a struct {
			StoreID string `json:"storeId"`
		}
		_ = json.Unmarshal(req.Args, &a)
		st, ok := f.stores[a.StoreID]
		if !ok {
			_, _ = w.Write([]byte("null"))
			return
		}
		_ = json.NewEncoder(w).Encode(Store{ID: st.StoreID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName})
	default:
		fail(apperr.New(apperr.NotFound, "unknown operation %s", req.Path).WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation}))
	}
}

func (f *fakeCatalog) set(st StoreContact) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stores[st.StoreID] = st
}

func (f *fakeCatalog) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

const testStore = "sto_0123456789abcdef01234567"

// TestStoreRefAsksTheCatalogEveryTime: the access checks' store comes from
// the catalog's internal getStoreContacts on every call, with its version;
// a handover is seen at the next call (nothing cached); a store the catalog
// does not have is nil (answered as a missing store); the catalog's errors
// are the call's.
func TestStoreRefAsksTheCatalogEveryTime(t *testing.T) {
	f := newFakeCatalog(t)
	ctx := context.Background()

	if ref, err := f.client.StoreRef(ctx, testStore); err != nil || ref != nil {
		t.Fatalf("a store the catalog does not have: %+v %v", ref, err)
	}
	f.set(StoreContact{StoreID: testStore, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", Version: 1})
	ref, err := f.client.StoreRef(ctx, testStore)
	if err != nil || ref == nil || *ref != (ops.StoreRef{ID: testStore, Name: "Bakery", OwnerUserID: "owner-1", Version: 1}) {
		t.Fatalf("a new store, asked at once: %+v %v", ref, err)
	}
	// The cached store (what services show) is dropped when the owner moved.
	if st, err := f.client.Store(ctx, testStore); err != nil || st.OwnerUserID != "owner-1" {
		t.Fatalf("Store: %+v %v", st, err)
	}
	f.set(StoreContact{StoreID: testStore, Name: "Bakery", OwnerUserID: "owner-2", Version: 2})
	ref, err = f.client.StoreRef(ctx, testStore)
	if err != nil || ref.OwnerUserID != "owner-2" || ref.Version != 2 {
		t.Fatalf("after a handover: %+v %v", ref, err)
	}
	if st, err := f.client.Store(ctx, testStore); err != nil || st.OwnerUserID != "owner-2" {
		t.Fatalf("the cached store kept the former owner: %+v %v", st, err)
	}
	for _, p := range f.took() {
		if p != OpGetStoreContacts && p != OpGetStore {
			t.Fatalf("called %s", p)
		}
	}
	f.took()
	_, _ = f.client.StoreRef(ctx, testStore)
	if got := f.took(); len(got) != 1 || got[0] != OpGetStoreContacts {
		t.Fatalf("one access check called %v, want only %s", got, OpGetStoreContacts)
	}

	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	if _, err := f.client.StoreRef(ctx, testStore); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("catalog down: %v, want UNAVAILABLE", err)
	}
}

// TestStoreRefFallsBackToGetStoreOnAnOlderCatalog: a catalog of an older
// release that refuses getStoreContacts to this caller (it counted only the
// payouts service among its callers) is asked through the public getStore:
// the owner is still the catalog's, read afresh, without a version.
func TestStoreRefFallsBackToGetStoreOnAnOlderCatalog(t *testing.T) {
	f := newFakeCatalog(t)
	f.refused = true // before any call
	ctx := context.Background()
	f.set(StoreContact{StoreID: testStore, Name: "Bakery", OwnerUserID: "owner-1", Version: 3})
	ref, err := f.client.StoreRef(ctx, testStore)
	if err != nil || ref == nil || *ref != (ops.StoreRef{ID: testStore, Name: "Bakery", OwnerUserID: "owner-1"}) {
		t.Fatalf("fallback: %+v %v", ref, err)
	}
	if got := f.took(); len(got) != 2 || got[0] != OpGetStoreContacts || got[1] != OpGetStore {
		t.Fatalf("calls %v", got)
	}
	f.set(StoreContact{StoreID: testStore, Name: "Bakery", OwnerUserID: "owner-2"})
	if ref, err := f.client.StoreRef(ctx, testStore); err != nil || ref.OwnerUserID != "owner-2" {
		t.Fatalf("fallback after a handover: %+v %v", ref, err)
	}
	if ref, err := f.client.StoreRef(ctx, "sto_ffffffffffffffffffffffff"); err != nil || ref != nil {
		t.Fatalf("fallback, missing store: %+v %v", ref, err)
	}
	// Any other error of getStoreContacts is the call's: no fallback.
	f.mu.Lock()
	f.refused, f.broken = false, true
	f.mu.Unlock()
	f.took()
	if _, err := f.client.StoreRef(ctx, testStore); apperr.CodeOf(err) != apperr.Internal || errors.Is(err, ops.ErrOperationRefused) {
		t.Fatalf("getStoreContacts broken: %v", err)
	}
	if got := f.took(); len(got) != 1 {
		t.Fatalf("an INTERNAL answer fell back: calls %v", got)
	}
}
