package catalog

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/catalog"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
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
	open := true
	if a.IsOpen != nil {
		open = *a.IsOpen
	}
	name := strings.TrimSpace(a.Name)
	st := Store{
		ID: ids.New("stores"), Name: name, NameKey: nameKey(name), OwnerUserID: strings.TrimSpace(a.OwnerUserID),
		OwnerName: strings.TrimSpace(a.OwnerName), OwnerPhone: strings.TrimSpace(a.OwnerPhone),
		PrimaryCategoryID: a.PrimaryCategoryID, Tier: TierBasic, IsActive: true, IsOpen: &open,
		City: a.City, Area: a.Area, Latitude: a.Latitude, Longitude: a.Longitude, CreationTime: now(), Version: 1,
	}
	if a.Tier != nil {
		st.Tier = *a.Tier
	}
	if err := checkStoreFields(&st); err != nil {
		return "", err
	}
	// The store and its store.created event commit together, so the wallet that the
	// payouts service opens from the event can never be missed.
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.checkStoreRefs(ctx, &st, nil); err != nil {
			return err
		}
		if _, err := s.env.DB.Collection("stores").InsertOne(ctx, st); err != nil {
			return err
		}
		_, err := s.env.Outbox.Add(ctx, Topic, contract.EventStoreCreated, st.ID, st.event())
		return err
	})
	if err != nil {
		return "", err
	}
	s.env.Relay.Kick()
	return st.ID, nil
}

// checkStoreFields holds the rules between a store's own fields: coordinates
// come in pairs, and an area needs the city it lies in.
func checkStoreFields(st *Store) error {
	switch {
	case st.Latitude != nil && st.Longitude == nil:
		return apperr.Invalid("longitude", "is required with latitude: a store's position is both")
	case st.Latitude == nil && st.Longitude != nil:
		return apperr.Invalid("latitude", "is required with longitude: a store's position is both")
	case st.Area != nil && st.City == nil:
		return apperr.Invalid("area", "needs the store's city: give city too")
	}
	return nil
}

// checkStoreRefs checks that the records a store names exist, and that its
// area lies in its city. before, on an update, is the store as it was: what
// did not change is not checked again (a store keeps working whatever
// happened to its references since).
func (s *svc) checkStoreRefs(ctx context.Context, st, before *Store) error {
	changed := func(a, b *string) bool { return before == nil || !reflect.DeepEqual(a, b) }
	if st.PrimaryCategoryID != nil && changed(st.PrimaryCategoryID, before.categoryOrNil()) {
		if _, err := mustFind[Category](ctx, s, "categories", *st.PrimaryCategoryID, "category"); err != nil {
			return err
		}
	}
	if st.City != nil && changed(st.City, before.cityOrNil()) {
		if _, err := mustFind[City](ctx, s, "cities", *st.City, "city"); err != nil {
			return err
		}
	}
	if st.Area != nil && (changed(st.Area, before.areaOrNil()) || changed(st.City, before.cityOrNil())) {
		ar, err := mustFind[Area](ctx, s, "areas", *st.Area, "area")
		if err != nil {
			return err
		}
		if ar.City != *st.City {
			return apperr.Invalid("area", "area %s is not in city %s", ar.ID, *st.City)
		}
	}
	return nil
}

func (st *Store) categoryOrNil() *string {
	if st == nil {
		return nil
	}
	return st.PrimaryCategoryID
}

func (st *Store) cityOrNil() *string {
	if st == nil {
		return nil
	}
	return st.City
}

func (st *Store) areaOrNil() *string {
	if st == nil {
		return nil
	}
	return st.Area
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

// setText sets *dst to v, trimmed, when v is given.
func setText(dst *string, v *string) {
	if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

// setPtr sets *dst to v when v is given.
func setPtr[T any](dst **T, v *T) {
	if v != nil {
		c := *v
		*dst = &c
	}
}

// updateStore is the administrators' change of any of a store's fields.
// Changing ownerUserId hands the store to another user.
func (s *svc) updateStore(ctx context.Context, a *updateStoreArgs) (*contract.Store, error) {
	return s.changeStore(ctx, a.StoreID, func(st *Store) error {
		setText(&st.Name, a.Name)
		setText(&st.OwnerUserID, a.OwnerUserID)
		setText(&st.OwnerName, a.OwnerName)
		setText(&st.OwnerPhone, a.OwnerPhone)
		setPtr(&st.PrimaryCategoryID, a.PrimaryCategoryID)
		if a.Tier != nil {
			st.Tier = *a.Tier
		}
		setPtr(&st.City, a.City)
		setPtr(&st.Area, a.Area)
		setPtr(&st.Latitude, a.Latitude)
		setPtr(&st.Longitude, a.Longitude)
		setPtr(&st.IsOpen, a.IsOpen)
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
	caller := ops.Caller(ctx)
	return s.changeStore(ctx, a.StoreID, func(st *Store) error {
		if caller == nil || st.OwnerUserID != caller.Sub {
			return apperr.New(apperr.PermissionDenied, "stores.catalog.updateMyStore is for the store's owner")
		}
		setText(&st.Name, a.Name)
		setText(&st.OwnerPhone, a.OwnerPhone)
		setPtr(&st.IsOpen, a.IsOpen)
		return nil
	})
}

// changeStore reads a store, applies fn, checks the result and writes it
// back with its store.updated event, in one transaction; the write is
// conditional on the version read, so concurrent changes apply one after the
// other (a lost race starts over on the new state). A change that alters
// nothing writes nothing and publishes nothing. The answer is the store after
// the change, with the owner's contact (the callers are its owner or an
// administrator).
func (s *svc) changeStore(ctx context.Context, id string, fn func(st *Store) error) (*contract.Store, error) {
	var out *Store
	var published bool
	_, err := store.Retry(ctx, "the store", func(ctx context.Context) (struct{}, error) {
		published = false
		return struct{}{}, s.env.DB.Tx(ctx, func(ctx context.Context) error {
			before, err := mustFind[Store](ctx, s, "stores", id, "store")
			if err != nil {
				return err
			}
			st := *before
			if err := fn(&st); err != nil {
				return err
			}
			st.NameKey = nameKey(st.Name)
			if err := checkStoreFields(&st); err != nil {
				return err
			}
			if reflect.DeepEqual(&st, before) {
				out = &st
				return nil
			}
			if err := s.checkStoreRefs(ctx, &st, before); err != nil {
				return err
			}
			if st.IsOpen == nil { // a store from before the flag is written open, as it reads
				open := true
				st.IsOpen = &open
			}
			st.Version, st.UpdatedAt = before.version()+1, now()
			filter := bson.M{"_id": id, "version": before.Version}
			if before.Version == 0 {
				filter["version"] = bson.M{"$exists": false}
			}
			res, err := s.env.DB.Collection("stores").ReplaceOne(ctx, filter, st)
			if err != nil {
				return err
			}
			if res.MatchedCount != 1 {
				return store.ErrConflict
			}
			if _, err := s.env.Outbox.Add(ctx, Topic, contract.EventStoreUpdated, st.ID, st.event()); err != nil {
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
	return out.view(), nil
}

type storeArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
}

// getStore is public, but the owner's name and phone are shown only to the owner
// and to administrators.
func (s *svc) getStore(ctx context.Context, a *storeArgs) (*contract.Store, error) {
	st, _, err := findByID[Store](ctx, s, "stores", a.StoreID)
	if st == nil {
		return nil, err
	}
	return visible(ctx, st), nil
}

// visible is the store as the caller may see it: the owner's contact only
// for the owner and administrators.
func visible(ctx context.Context, st *Store) *contract.Store {
	v := st.view()
	if id := ops.Caller(ctx); id == nil || (id.Sub != st.OwnerUserID && !id.IsAdmin()) {
		v.OwnerName, v.OwnerPhone = "", ""
	}
	return v
}

type listStoresArgs struct {
	CategoryID     *string   `json:"categoryId" op:"id=categories"`
	City           *string   `json:"city" op:"id=cities"`
	Area           *string   `json:"area" op:"id=areas"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listStores pages the stores by name (then id), open or not (each says),
// filtered by primary category, city and area; a filter naming a missing
// record is NOT_FOUND, an area outside the given city INVALID_ARGUMENT.
func (s *svc) listStores(ctx context.Context, a *listStoresArgs) (page.Result[contract.Store], error) {
	filter := bson.M{}
	if a.CategoryID != nil {
		if _, err := mustFind[Category](ctx, s, "categories", *a.CategoryID, "category"); err != nil {
			return page.Result[contract.Store]{}, err
		}
		filter["primaryCategoryId"] = *a.CategoryID
	}
	if a.City != nil {
		if _, err := mustFind[City](ctx, s, "cities", *a.City, "city"); err != nil {
			return page.Result[contract.Store]{}, err
		}
		filter["city"] = *a.City
	}
	if a.Area != nil {
		ar, err := mustFind[Area](ctx, s, "areas", *a.Area, "area")
		if err != nil {
			return page.Result[contract.Store]{}, err
		}
		if a.City != nil && ar.City != *a.City {
			return page.Result[contract.Store]{}, apperr.Invalid("area", "area %s is not in city %s", ar.ID, *a.City)
		}
		filter["area"] = *a.Area
	}
	r, err := page.Find(ctx, s.env.DB.Collection("stores"), filter, page.Sort{Field: "nameKey"}, a.PaginationOpts,
		func(st *Store) (any, string) { return st.NameKey, st.ID })
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
	r, err := page.Find(ctx, s.env.DB.Collection("stores"), bson.M{"ownerUserId": ops.Caller(ctx).Sub}, page.Sort{Field: "nameKey"}, a.PaginationOpts,
		func(st *Store) (any, string) { return st.NameKey, st.ID })
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
	if a.RadiusKm != nil && *a.RadiusKm <= 0 {
		return nil, apperr.Invalid("radiusKm", "must be greater than 0")
	}
	radii, err := s.radii(ctx)
	if err != nil {
		return nil, err
	}
	r := radii.DefaultSearchRadiusKm
	if a.RadiusKm != nil {
		if *a.RadiusKm > radii.MaxSearchRadiusKm {
			return nil, apperr.Invalid("radiusKm", "must be at most %v (the platform's maxSearchRadiusKm)", radii.MaxSearchRadiusKm)
		}
		r = *a.RadiusKm
	}
	b := boundingBox(a.Latitude, a.Longitude, r)
	filter := bson.M{"isOpen": true, "latitude": bson.M{"$gte": b.Lat.Min, "$lte": b.Lat.Max}}
	if len(b.Lng) == 1 {
		filter["longitude"] = bson.M{"$gte": b.Lng[0].Min, "$lte": b.Lng[0].Max}
	} else {
		sides := bson.A{}
		for _, sp := range b.Lng {
			sides = append(sides, bson.M{"longitude": bson.M{"$gte": sp.Min, "$lte": sp.Max}})
		}
		filter["$or"] = sides
	}
	cur, err := s.env.DB.Collection("stores").Find(ctx, filter)
	if err != nil {
		return nil, err
	}
	var candidates []Store
	if err := cur.All(ctx, &candidates); err != nil {
		return nil, err
	}
	type hit struct {
		st *Store
		km float64
	}
	hits := make([]hit, 0, len(candidates))
	for i := range candidates {
		st := &candidates[i]
		if st.Latitude == nil || st.Longitude == nil {
			continue
		}
		if km := distanceKm(a.Latitude, a.Longitude, *st.Latitude, *st.Longitude); km <= r {
			hits = append(hits, hit{st, km})
		}
	}
	slices.SortFunc(hits, func(x, y hit) int { return cmp.Or(cmp.Compare(x.km, y.km), strings.Compare(x.st.ID, y.st.ID)) })
	out := make([]NearbyStore, 0, min(len(hits), maxNearby))
	for _, h := range hits[:min(len(hits), maxNearby)] {
		out = append(out, NearbyStore{Store: *visible(ctx, h.st), DistanceKm: roundKm(h.km)})
	}
	return out, nil
}

// backfillNameKeys gives the stores created before listStores existed the
// name key it sorts by, once, at start.
func (s *svc) backfillNameKeys(ctx context.Context) error {
	// A start-up task: it writes over DB_MEMORY_LIMIT as the start does
	// (libs/store/memlimit.go), or it would be lost until the next start.
	ctx = store.AllowOverMemoryLimit(ctx, "catalog: the name keys' backfill at start")
	stores := s.env.DB.Collection("stores")
	cur, err := stores.Find(ctx, bson.M{"nameKey": bson.M{"$exists": false}}, options.Find().SetProjection(bson.M{"name": 1}))
	if err != nil {
		return err
	}
	var legacy []struct {
		ID   string `bson:"_id"`
		Name string `bson:"name"`
	}
	if err := cur.All(ctx, &legacy); err != nil {
		return err
	}
	for _, st := range legacy {
		if _, err := stores.UpdateOne(ctx, bson.M{"_id": st.ID, "nameKey": bson.M{"$exists": false}},
			bson.M{"$set": bson.M{"nameKey": nameKey(st.Name)}}); err != nil {
			return err
		}
	}
	return nil
}
