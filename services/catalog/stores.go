package catalog

import (
	"context"

	contract "marketplace/libs/contracts/catalog"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
	"marketplace/services/catalog/storage"
)

// Stores: creation and changes (each commits its store.created or
// store.updated event, the whole store after the change, with it), reads, and
// discovery (a list by name with filters, and a search by distance).

// maxNearby caps searchNearby's answer: the nearest stores first.
const maxNearby = page.MaxItems

type createStoreArgs struct {
	Name              string   `json:"name" op:"required,nonblank,max=200"`
	OwnerUserID       string   `json:"ownerUserId" op:"required,nonblank,max=200"`
	OwnerName         string   `json:"ownerName" op:"required,nonblank,max=200"`
	OwnerPhone        string   `json:"ownerPhone" op:"required,nonblank,max=32"`
	PrimaryCategoryID *string  `json:"primaryCategoryId" op:"id=categories"`
	Tier              *string  `json:"tier" op:"enum=basic|premium|enterprise"`
	City              *string  `json:"city" op:"id=cities"`
	Area              *string  `json:"area" op:"id=areas"`
	Latitude          *float64 `json:"latitude" op:"min=-90,max=90"`
	Longitude         *float64 `json:"longitude" op:"min=-180,max=180"`
	IsOpen            *bool    `json:"isOpen"`
}

func (s *svc) createStore(ctx context.Context, a *createStoreArgs) (string, error) {
	st, err := domain.NewStore(ids.New("stores"), domain.StoreFields{
		Name: &a.Name, OwnerUserID: &a.OwnerUserID, OwnerName: &a.OwnerName, OwnerPhone: &a.OwnerPhone,
		PrimaryCategoryID: a.PrimaryCategoryID, Tier: a.Tier, City: a.City, Area: a.Area,
		Latitude: a.Latitude, Longitude: a.Longitude, IsOpen: a.IsOpen,
	}, s.now())
	if err != nil {
		return "", err
	}
	// The store and its store.created event commit together, so the wallet that the
	// payouts service opens from the event can never be missed.
	err = s.withEvent(ctx, func(ctx context.Context) (string, string, any, error) {
		if err := s.checkStoreRefs(ctx, &st, st.RefsToCheck(nil)); err != nil {
			return "", "", nil, err
		}
		return contract.EventStoreCreated, st.ID, storeEvent(&st), s.stores.Insert(ctx, st)
	})
	if err != nil {
		return "", err
	}
	return st.ID, nil
}

// checkStoreRefs checks that the records a store names exist (those
// domain.Store.RefsToCheck names), and that its area lies in its city.
func (s *svc) checkStoreRefs(ctx context.Context, st *Store, r domain.Refs) error {
	if r.Category != "" {
		if _, err := s.places.Category(ctx, r.Category); err != nil {
			return err
		}
	}
	if r.City != "" {
		if _, err := s.places.City(ctx, r.City); err != nil {
			return err
		}
	}
	if r.Area != "" {
		ar, err := s.places.Area(ctx, r.Area)
		if err != nil {
			return err
		}
		return ar.InCity(*st.City)
	}
	return nil
}

type updateStoreArgs struct {
	StoreID           string   `json:"storeId" op:"required,id=stores"`
	Name              *string  `json:"name" op:"nonblank,max=200"`
	OwnerUserID       *string  `json:"ownerUserId" op:"nonblank,max=200"`
	OwnerName         *string  `json:"ownerName" op:"nonblank,max=200"`
	OwnerPhone        *string  `json:"ownerPhone" op:"nonblank,max=32"`
	PrimaryCategoryID *string  `json:"primaryCategoryId" op:"id=categories"`
	Tier              *string  `json:"tier" op:"enum=basic|premium|enterprise"`
	City              *string  `json:"city" op:"id=cities"`
	Area              *string  `json:"area" op:"id=areas"`
	Latitude          *float64 `json:"latitude" op:"min=-90,max=90"`
	Longitude         *float64 `json:"longitude" op:"min=-180,max=180"`
	IsOpen            *bool    `json:"isOpen"`
}

// updateStore is the administrators' change of any of a store's fields.
// Changing ownerUserId hands the store to another user.
func (s *svc) updateStore(ctx context.Context, a *updateStoreArgs) (*contract.Store, error) {
	return s.changeStore(ctx, a.StoreID, func(st *Store) error {
		st.AdminChange(domain.StoreFields{
			Name: a.Name, OwnerUserID: a.OwnerUserID, OwnerName: a.OwnerName, OwnerPhone: a.OwnerPhone,
			PrimaryCategoryID: a.PrimaryCategoryID, Tier: a.Tier, City: a.City, Area: a.Area,
			Latitude: a.Latitude, Longitude: a.Longitude, IsOpen: a.IsOpen,
		})
		return nil
	})
}

type updateMyStoreArgs struct {
	StoreID    string  `json:"storeId" op:"required,id=stores"`
	Name       *string `json:"name" op:"nonblank,max=200"`
	OwnerPhone *string `json:"ownerPhone" op:"nonblank,max=32"`
	IsOpen     *bool   `json:"isOpen"`
}

// updateMyStore is the owner's change of their store's name, phone and open
// flag (the registry checked the owner; the check is repeated on the store as
// the change reads it, so a store handed over meanwhile is refused).
func (s *svc) updateMyStore(ctx context.Context, a *updateMyStoreArgs) (*contract.Store, error) {
	caller := ""
	if id := ops.Caller(ctx); id != nil {
		caller = id.Sub
	}
	return s.changeStore(ctx, a.StoreID, func(st *Store) error {
		return st.OwnerChange(caller, a.Name, a.OwnerPhone, a.IsOpen)
	})
}

// changeStore reads a store, applies fn, settles the change (domain) and
// writes it back with its store.updated event, in one transaction; the write
// is conditional on the version read, so concurrent changes apply one after
// the other (a lost race starts over on the new state). A change that alters
// nothing writes nothing and publishes nothing. The answer is the store after
// the change, with the owner's contact (the callers are its owner or an
// administrator).
func (s *svc) changeStore(ctx context.Context, id string, fn func(st *Store) error) (*contract.Store, error) {
	var out *Store
	var published bool
	_, err := store.Retry(ctx, "the store", func(ctx context.Context) (struct{}, error) {
		published = false
		return struct{}{}, s.env.DB.Tx(ctx, func(ctx context.Context) error {
			before, err := s.stores.Get(ctx, id)
			if err != nil {
				return err
			}
			st := *before
			if err := fn(&st); err != nil {
				return err
			}
			changed, err := st.Settle(before, s.now())
			if err != nil {
				return err
			}
			if !changed {
				out = &st
				return nil
			}
			if err := s.checkStoreRefs(ctx, &st, st.RefsToCheck(before)); err != nil {
				return err
			}
			if err := s.stores.Replace(ctx, before, &st); err != nil {
				return err
			}
			if _, err := s.env.Outbox.Add(ctx, Topic, contract.EventStoreUpdated, st.ID, storeEvent(&st)); err != nil {
				return err
			}
			out, published = &st, true
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if published {
		s.env.Relay.Kick()
	}
	return storeView(out), nil
}

type storeArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
}

// getStore is public, but the owner's name and phone are shown only to the owner
// and to administrators.
func (s *svc) getStore(ctx context.Context, a *storeArgs) (*contract.Store, error) {
	st, err := s.stores.Find(ctx, a.StoreID)
	if st == nil {
		return nil, err
	}
	return visible(ctx, st), nil
}

// visible is the store as the caller may see it: the owner's contact only
// for the owner and administrators.
func visible(ctx context.Context, st *Store) *contract.Store {
	v := storeView(st)
	sub, admin := "", false
	if id := ops.Caller(ctx); id != nil {
		sub, admin = id.Sub, id.IsAdmin()
	}
	if !st.ContactVisibleTo(sub, admin) {
		v.OwnerName, v.OwnerPhone = "", ""
	}
	return v
}

type listStoresArgs struct {
	CategoryID     *string   `json:"categoryId" op:"id=categories"`
	City           *string   `json:"city" op:"id=cities"`
	Area           *string   `json:"area" op:"id=areas"`
	Search         *string   `json:"search" op:"nonblank,max=100"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listStores pages the stores by name (then id), open or not (each says),
// filtered by primary category, city and area, and by a prefix of the name
// (its name key's: any case, runs of spaces as one); a filter naming a missing
// record is NOT_FOUND, an area outside the given city INVALID_ARGUMENT.
func (s *svc) listStores(ctx context.Context, a *listStoresArgs) (page.Result[contract.Store], error) {
	var f storage.StoreFilter
	if a.CategoryID != nil {
		if _, err := s.places.Category(ctx, *a.CategoryID); err != nil {
			return page.Result[contract.Store]{}, err
		}
		f.Category = *a.CategoryID
	}
	if a.City != nil {
		if _, err := s.places.City(ctx, *a.City); err != nil {
			return page.Result[contract.Store]{}, err
		}
		f.City = *a.City
	}
	if a.Area != nil {
		ar, err := s.places.Area(ctx, *a.Area)
		if err != nil {
			return page.Result[contract.Store]{}, err
		}
		if a.City != nil {
			if err := ar.InCity(*a.City); err != nil {
				return page.Result[contract.Store]{}, err
			}
		}
		f.Area = *a.Area
	}
	if a.Search != nil {
		f.NamePrefix = domain.NameKey(*a.Search)
	}
	r, err := s.stores.PageByName(ctx, f, a.PaginationOpts)
	if err != nil {
		return page.Result[contract.Store]{}, err
	}
	return page.Map(r, func(st *Store) contract.Store { return *visible(ctx, st) }), nil
}

type listMyStoresArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listMyStores pages the caller's stores (ownerUserId is the caller), by name
// then id as listStores, open or not, with the owner's contact (theirs). An
// administrator gets the stores they own, not every store (listStores is
// that). A store handed to another owner leaves the former owner's list at
// once: the list is read from the stores as committed.
func (s *svc) listMyStores(ctx context.Context, a *listMyStoresArgs) (page.Result[contract.Store], error) {
	r, err := s.stores.PageOfOwner(ctx, ops.Caller(ctx).Sub, a.PaginationOpts)
	if err != nil {
		return page.Result[contract.Store]{}, err
	}
	return page.Map(r, func(st *Store) contract.Store { return *visible(ctx, st) }), nil
}

type searchNearbyArgs struct {
	Latitude  float64  `json:"latitude" op:"required,min=-90,max=90"`
	Longitude float64  `json:"longitude" op:"required,min=-180,max=180"`
	RadiusKm  *float64 `json:"radiusKm"`
}

// searchNearby answers the open stores within radiusKm (default: the
// configuration's defaultSearchRadiusKm; at most its maxSearchRadiusKm) of a
// point, nearest first (ties by id), at most maxNearby of them. Stores without
// a position are never found.
func (s *svc) searchNearby(ctx context.Context, a *searchNearbyArgs) ([]NearbyStore, error) {
	if err := domain.CheckRadius(a.RadiusKm); err != nil {
		return nil, err
	}
	radii, err := s.radii(ctx)
	if err != nil {
		return nil, err
	}
	r, err := radii.Radius(a.RadiusKm)
	if err != nil {
		return nil, err
	}
	candidates, err := s.stores.OpenIn(ctx, domain.BoundingBox(a.Latitude, a.Longitude, r))
	if err != nil {
		return nil, err
	}
	hits := domain.Nearest(candidates, a.Latitude, a.Longitude, r, maxNearby)
	out := make([]NearbyStore, 0, len(hits))
	for _, h := range hits {
		out = append(out, NearbyStore{Store: *visible(ctx, h.Store), DistanceKm: h.DistanceKm})
	}
	return out, nil
}

// backfillNameKeys gives the stores created before listStores existed the
// name key it sorts by, once, at start.
func (s *svc) backfillNameKeys(ctx context.Context) error {
	// A start-up task: it writes over DB_MEMORY_LIMIT as the start does
	// (libs/store/memlimit.go), or it would be lost until the next start.
	return s.stores.BackfillNameKeys(store.AllowOverMemoryLimit(ctx, "catalog: the name keys' backfill at start"))
}
