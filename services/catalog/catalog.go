// Package catalog is the reference-data service: cities, areas, categories, stores
// and products. Other services validate against it through its operations.
package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the catalog service.
// It follows the platform configuration's events for the search radii
// (searchsettings.go): the configuration service calls the catalog, so the
// catalog cannot call it back.
var Module = service.Module{Name: contract.Service, Build: build, Publishes: []string{contract.Topic}, Consumes: []string{platformconfig.Topic}}

type svc struct {
	env service.Env
	// settingsStatus is the search settings consumer's health.
	settingsStatus *events.ConsumerStatus
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, settingsStatus: events.NewConsumerStatus(0)}
	return &service.Built{
		Background: []func(context.Context) error{s.consumeSettings, s.backfillNameKeys},
		Checks:     []httpserver.Check{s.settingsCheck()},
		Registry: ops.NewRegistry("catalog",
			ops.NewMutation("admins.catalog.createCity", ops.Admin, "Create a city.", s.createCity),
			ops.NewMutation("admins.catalog.createArea", ops.Admin, "Create an area in a city.", s.createArea),
			ops.NewMutation("admins.catalog.createCategory", ops.Admin, "Create a store category.", s.createCategory),
			ops.NewMutation("admins.catalog.updateCity", ops.Admin, "Rename a city (name and/or nameArabic).", s.updateCity),
			ops.NewMutation("admins.catalog.updateArea", ops.Admin, "Rename an area.", s.updateArea),
			ops.NewMutation("admins.catalog.createStore", ops.Admin, "Create a store (its wallet follows through the store.created event).", s.createStore),
			ops.NewMutation("admins.catalog.updateStore", ops.Admin, "Change the given fields of a store (store.updated); returns the store.", s.updateStore),
			ops.NewMutation("stores.catalog.updateMyStore", ops.StoreOwner, "The owner changes their store's name, phone or open flag; returns the store.", s.updateMyStore, ops.StoreArg("storeId")),
			ops.NewQuery("stores.catalog.listMyStores", ops.Authenticated, "The caller's stores (those they own) by name, as listStores shows them (paginated).", s.listMyStores),
			ops.NewQuery("catalog.stores.listStores", ops.Public, "Stores by name, optionally of a category, city or area (paginated).", s.listStores),
			ops.NewQuery("catalog.stores.searchNearby", ops.Public, "Open stores within a radius of a point, nearest first, each with distanceKm.", s.searchNearby,
				ops.Errors(apperr.FailedPrecondition)), // no configuration in force: no radius
			ops.NewQuery("catalog.locations.listCities", ops.Public, "All cities by name.", s.listCities),
			ops.NewQuery("catalog.locations.listAreas", ops.Public, "Areas of a city by name.", s.listAreas),
			ops.NewQuery("catalog.categories.listCategories", ops.Public, "All categories by name.", s.listCategories),
			ops.NewQuery("stores.catalog.getStore", ops.Public, "A store, or null.", s.getStore),
			ops.NewMutation("stores.products.createProduct", ops.StoreOwner, fmt.Sprintf("Add a product to the caller's store (a store keeps at most %d products: beyond, FAILED_PRECONDITION with details.reason too_many_products).", MaxProductsPerStore), s.createProduct, ops.StoreArg("storeId")),
			ops.NewQuery("stores.products.listProductsPaginated", ops.Public, "A store's products in the order they were added (paginated).", s.listProductsPaginated),
			ops.NewQuery("stores.products.listProducts", ops.Public, fmt.Sprintf("A store's products in the order they were added, all in one array: at most %d (the products a store keeps).", MaxProductsPerStore), s.listProducts,
				ops.Deprecated("replaced by stores.products.listProductsPaginated (the same products, in pages); kept at least 30 days after the release that added it and until no client calls it, then removed in a major release of the public contract")),
			ops.NewMutation("stores.products.updateProduct", ops.StoreOwner, "Change a product's name, price or availability (orders and cart lines keep their prices); returns the product.", s.updateProduct,
				ops.StoreVia("productId", s.storeOfProduct)),
			ops.NewQuery("catalog.categories.getCategories", ops.Internal, "Categories by id, in one call.", s.getCategories, ops.CalledBy("platformconfig")),
			ops.NewMutation("catalog.categories.ensureByName", ops.Internal, "Find or create categories by name.", s.ensureCategories, ops.CalledBy("platformconfig")),
			ops.NewQuery("catalog.locations.resolve", ops.Internal, "Cities and areas by id, in one call.", s.resolveLocations, ops.CalledBy("addresses")),
			ops.NewQuery("catalog.products.getProducts", ops.Internal, "Products by id, in one call.", s.getProducts, ops.CalledBy("customers")),
			ops.NewQuery(contract.OpGetStoreContacts, ops.Internal, "Stores by id with their owner's name and phone, as committed (the payouts service's listings; the store owners' access checks of payouts, customers and reviews).", s.getStoreContacts,
				ops.CalledBy("payouts", "customers", "reviews")),
		).WithResolvers(ops.Resolvers{Store: s.storeRef}),
		Indexes: append([]store.Index{
			{Collection: "cities", Keys: bson.D{{Key: "nameKey", Value: 1}}, Unique: true, Name: "name_unique"},
			{Collection: "areas", Keys: bson.D{{Key: "city", Value: 1}, {Key: "nameKey", Value: 1}}, Unique: true, Name: "city_name_unique"},
			{Collection: "categories", Keys: bson.D{{Key: "nameKey", Value: 1}}, Unique: true, Name: "name_unique"},
			{Collection: "stores", Keys: bson.D{{Key: "ownerUserId", Value: 1}}, Name: "owner"},
			// listMyStores: an owner's stores by name (then id).
			{Collection: "stores", Keys: bson.D{{Key: "ownerUserId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "owner_by_name"},
			// searchNearby's bounding box (geo.go).
			{Collection: "stores", Keys: bson.D{{Key: "isOpen", Value: 1}, {Key: "latitude", Value: 1}, {Key: "longitude", Value: 1}}, Name: "open_by_position"},
			// listStores: each filter it takes, in its order (name, then id).
			{Collection: "stores", Keys: bson.D{{Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_name"},
			{Collection: "stores", Keys: bson.D{{Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "category_by_name"},
			{Collection: "stores", Keys: bson.D{{Key: "city", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "city_by_name"},
			{Collection: "stores", Keys: bson.D{{Key: "city", Value: 1}, {Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "city_category_by_name"},
			{Collection: "stores", Keys: bson.D{{Key: "area", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "area_by_name"},
			{Collection: "stores", Keys: bson.D{{Key: "area", Value: 1}, {Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "area_category_by_name"},
			// A store's products in the order they were added (ids are random).
			{Collection: "products", Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_by_creation"},
			{Collection: settingsColl, Keys: bson.D{{Key: "isActive", Value: 1}, {Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}, Name: "in_force"},
		}, events.ConsumerIndexes()...),
	}, nil
}

func now() int64 { return time.Now().UnixMilli() }

// nameKey makes names unique regardless of case and spacing.
func nameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func (s *svc) insert(ctx context.Context, coll string, doc any, what string) error {
	if _, err := s.env.DB.Collection(coll).InsertOne(ctx, doc); err != nil {
		if store.IsDuplicate(err) {
			return apperr.New(apperr.AlreadyExists, "%s already exists", what)
		}
		return err
	}
	return nil
}

// findByID loads one record; found is false when it does not exist.
func findByID[T any](ctx context.Context, s *svc, coll, id string) (*T, bool, error) {
	var out T
	err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": id}).Decode(&out)
	if store.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &out, true, nil
}

// mustFind loads one record or answers NOT_FOUND naming it.
func mustFind[T any](ctx context.Context, s *svc, coll, id, what string) (*T, error) {
	v, ok, err := findByID[T](ctx, s, coll, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.New(apperr.NotFound, "%s %s does not exist", what, id)
	}
	return v, nil
}

func findAll[T any](ctx context.Context, s *svc, coll string, filter bson.M, sort bson.D) ([]T, error) {
	cur, err := s.env.DB.Collection(coll).Find(ctx, filter, options.Find().SetSort(sort))
	if err != nil {
		return nil, err
	}
	out := []T{}
	return out, cur.All(ctx, &out)
}

type createCityArgs struct {
	Name       string `json:"name" op:"required,nonblank,max=100"`
	NameArabic string `json:"nameArabic" op:"required,nonblank,max=100"`
}

func (s *svc) createCity(ctx context.Context, a *createCityArgs) (string, error) {
	c := City{ID: ids.New("cities"), Name: strings.TrimSpace(a.Name), NameArabic: strings.TrimSpace(a.NameArabic), NameKey: nameKey(a.Name), CreationTime: now(), Version: 1}
	return c.ID, s.insertWithEvent(ctx, "cities", c, "a city named "+c.Name, contract.EventCityCreated, c.place())
}

// insertWithEvent inserts a record and its event in one transaction.
func (s *svc) insertWithEvent(ctx context.Context, coll string, doc any, what, eventType string, p Place) error {
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		if err := s.insert(ctx, coll, doc, what); err != nil {
			return err
		}
		_, err := s.env.Outbox.Add(ctx, Topic, eventType, p.ID, p)
		return err
	})
	if err == nil {
		s.env.Relay.Kick()
	}
	return err
}

type updateCityArgs struct {
	CityID     string  `json:"cityId" op:"required,id=cities"`
	Name       *string `json:"name" op:"nonblank,max=100"`
	NameArabic *string `json:"nameArabic" op:"nonblank,max=100"`
}

// updateCity renames a city; services that show city names hear it as city.updated.
func (s *svc) updateCity(ctx context.Context, a *updateCityArgs) (ops.Null, error) {
	set := bson.M{}
	if a.Name != nil {
		set["name"], set["nameKey"] = strings.TrimSpace(*a.Name), nameKey(*a.Name)
	}
	if a.NameArabic != nil {
		set["nameArabic"] = strings.TrimSpace(*a.NameArabic)
	}
	return nil, s.updateWithEvent(ctx, "cities", a.CityID, "city", contract.EventCityUpdated, set, func(raw bson.Raw) (Place, error) {
		var c City
		err := bson.Unmarshal(raw, &c)
		return c.place(), err
	})
}

type updateAreaArgs struct {
	AreaID string `json:"areaId" op:"required,id=areas"`
	Name   string `json:"name" op:"required,nonblank,max=100"`
}

// updateArea renames an area (it stays in its city).
func (s *svc) updateArea(ctx context.Context, a *updateAreaArgs) (ops.Null, error) {
	set := bson.M{"name": strings.TrimSpace(a.Name), "nameKey": nameKey(a.Name)}
	return nil, s.updateWithEvent(ctx, "areas", a.AreaID, "area", contract.EventAreaUpdated, set, func(raw bson.Raw) (Place, error) {
		var ar Area
		err := bson.Unmarshal(raw, &ar)
		return ar.place(), err
	})
}

// updateWithEvent applies set to a place, bumps its version and commits its
// eventType event in the same transaction.
func (s *svc) updateWithEvent(ctx context.Context, coll, id, kind, eventType string, set bson.M, place func(bson.Raw) (Place, error)) error {
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		raw, err := s.env.DB.Collection(coll).FindOneAndUpdate(ctx, bson.M{"_id": id},
			bson.M{"$set": set, "$inc": bson.M{"version": 1}}, options.FindOneAndUpdate().SetReturnDocument(options.After)).Raw()
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "%s %s does not exist", kind, id)
		}
		if store.IsDuplicate(err) {
			return apperr.New(apperr.AlreadyExists, "another %s has that name", kind)
		}
		if err != nil {
			return err
		}
		p, err := place(raw)
		if err != nil {
			return err
		}
		_, err = s.env.Outbox.Add(ctx, Topic, eventType, id, p)
		return err
	})
	if err == nil {
		s.env.Relay.Kick()
	}
	return err
}

type createAreaArgs struct {
	Name string `json:"name" op:"required,nonblank,max=100"`
	City string `json:"city" op:"required,id=cities"`
}

func (s *svc) createArea(ctx context.Context, a *createAreaArgs) (string, error) {
	if _, err := mustFind[City](ctx, s, "cities", a.City, "city"); err != nil {
		return "", err
	}
	ar := Area{ID: ids.New("areas"), Name: strings.TrimSpace(a.Name), City: a.City, NameKey: nameKey(a.Name), CreationTime: now(), Version: 1}
	return ar.ID, s.insertWithEvent(ctx, "areas", ar, "an area named "+ar.Name+" in this city", contract.EventAreaCreated, ar.place())
}

type createCategoryArgs struct {
	Name       string  `json:"name" op:"required,nonblank,max=100"`
	NameArabic *string `json:"nameArabic" op:"max=100"`
}

func (s *svc) createCategory(ctx context.Context, a *createCategoryArgs) (string, error) {
	c := Category{ID: ids.New("categories"), Name: strings.TrimSpace(a.Name), NameKey: nameKey(a.Name), CreationTime: now()}
	if a.NameArabic != nil {
		c.NameArabic = strings.TrimSpace(*a.NameArabic)
	}
	return c.ID, s.insert(ctx, "categories", c, "a category named "+c.Name)
}

func (s *svc) listCities(ctx context.Context, _ *ops.NoArgs) ([]City, error) {
	return findAll[City](store.Scan(ctx, "the cities: a short list kept by administrators, read whole"), s, "cities", bson.M{}, bson.D{{Key: "nameKey", Value: 1}})
}

type listAreasArgs struct {
	City string `json:"city" op:"required,id=cities"`
}

func (s *svc) listAreas(ctx context.Context, a *listAreasArgs) ([]Area, error) {
	if _, err := mustFind[City](ctx, s, "cities", a.City, "city"); err != nil {
		return nil, err
	}
	return findAll[Area](ctx, s, "areas", bson.M{"city": a.City}, bson.D{{Key: "nameKey", Value: 1}})
}

func (s *svc) listCategories(ctx context.Context, _ *ops.NoArgs) ([]Category, error) {
	return findAll[Category](store.Scan(ctx, "the categories: a short list kept by administrators, read whole"), s, "categories", bson.M{}, bson.D{{Key: "nameKey", Value: 1}})
}

// storeRef resolves stores for the access levels from the catalog's own records.
func (s *svc) storeRef(ctx context.Context, id string) (*ops.StoreRef, error) {
	st, _, err := findByID[Store](ctx, s, "stores", id)
	if st == nil {
		return nil, err
	}
	return &ops.StoreRef{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, Version: st.version()}, nil
}

type createProductArgs struct {
	StoreID     string     `json:"storeId" op:"required,id=stores"`
	Name        string     `json:"name" op:"required,nonblank,max=200"`
	Price       money.Fils `json:"price" op:"required,min=0.01,max=1000000"`
	IsAvailable *bool      `json:"isAvailable"`
}

// MaxProductsPerStore is how many products one store keeps (available or
// not; products are not deleted: an owner renames and reprices one instead).
// It bounds the store's listing: listProducts's one array, and the pages.
const MaxProductsPerStore = 1000

// productGuards holds one document per store ({_id: store id, adds}) that
// every createProduct of the store writes before it counts: concurrent
// creates then conflict and run again one after the other (count, then
// insert, in one transaction is write skew otherwise: each would count the
// same products and insert its own, and together they would pass the cap).
const productGuards = "productGuards"

// createProduct is for the store's owner only (administrators too only when
// they own the store): the registry checked it. A store past the cap is
// refused (FAILED_PRECONDITION, reason too_many_products), nothing written.
func (s *svc) createProduct(ctx context.Context, a *createProductArgs) (string, error) {
	p := Product{ID: ids.New("products"), StoreID: ops.StoreOf(ctx).ID, Name: strings.TrimSpace(a.Name), Price: a.Price, IsAvailable: true, CreationTime: now()}
	if a.IsAvailable != nil {
		p.IsAvailable = *a.IsAvailable
	}
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.env.DB.Collection(productGuards).UpdateOne(ctx, bson.M{"_id": p.StoreID}, bson.M{"$inc": bson.M{"adds": 1}},
			options.Update().SetUpsert(true)); err != nil {
			return err
		}
		n, err := s.env.DB.Collection("products").CountDocuments(ctx, bson.M{"storeId": p.StoreID})
		if err != nil {
			return err
		}
		if n >= MaxProductsPerStore {
			return apperr.New(apperr.FailedPrecondition, "a store keeps at most %d products: change one of them (stores.products.updateProduct) instead", MaxProductsPerStore).
				WithDetails(map[string]any{"reason": "too_many_products"})
		}
		return s.insert(ctx, "products", p, "product")
	})
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

type updateProductArgs struct {
	ProductID   string      `json:"productId" op:"required,id=products"`
	Name        *string     `json:"name" op:"nonblank,max=200"`
	Price       *money.Fils `json:"price" op:"min=0.01,max=1000000"`
	IsAvailable *bool       `json:"isAvailable"`
}

// storeOfProduct leads updateProduct's owner check from the product to its
// store.
func (s *svc) storeOfProduct(ctx context.Context, productID string) (string, error) {
	p, err := mustFind[Product](ctx, s, "products", productID, "product")
	if err != nil {
		return "", err
	}
	return p.StoreID, nil
}

// updateProduct changes a product for the store's owner (the registry
// checked). Orders and cart lines copied the price when they were made, so
// a new price reaches a cart line only when the product is added again.
func (s *svc) updateProduct(ctx context.Context, a *updateProductArgs) (*ProductView, error) {
	set := bson.M{}
	if a.Name != nil {
		set["name"] = strings.TrimSpace(*a.Name)
	}
	if a.Price != nil {
		set["price"] = *a.Price
	}
	if a.IsAvailable != nil {
		set["isAvailable"] = *a.IsAvailable
	}
	if len(set) == 0 {
		return nil, apperr.New(apperr.InvalidArgument, "nothing to change: give name, price or isAvailable")
	}
	var p Product
	err := s.env.DB.Collection("products").FindOneAndUpdate(ctx, bson.M{"_id": a.ProductID, "storeId": ops.StoreOf(ctx).ID},
		bson.M{"$set": set}, options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&p)
	if store.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "product %s does not exist", a.ProductID)
	}
	if err != nil {
		return nil, err
	}
	v := p.view()
	return &v, nil
}

// listProducts is the deprecated one-array listing: the store's products in
// the order they were added, at most MaxProductsPerStore of them (a store
// that had more before the cap shows its first ones; the pages show all).
func (s *svc) listProducts(ctx context.Context, a *storeArgs) ([]ProductView, error) {
	if _, err := mustFind[Store](ctx, s, "stores", a.StoreID, "store"); err != nil {
		return nil, err
	}
	cur, err := s.env.DB.Collection("products").Find(ctx, bson.M{"storeId": a.StoreID},
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(MaxProductsPerStore))
	if err != nil {
		return nil, err
	}
	ps := []Product{}
	if err := cur.All(ctx, &ps); err != nil {
		return nil, err
	}
	out := make([]ProductView, len(ps))
	for i := range ps {
		out[i] = ps[i].view()
	}
	return out, nil
}

type listProductsPaginatedArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listProductsPaginated pages a store's products in the order they were
// added (creation time, then id), at most page.MaxItems a page.
func (s *svc) listProductsPaginated(ctx context.Context, a *listProductsPaginatedArgs) (page.Result[ProductView], error) {
	if _, err := mustFind[Store](ctx, s, "stores", a.StoreID, "store"); err != nil {
		return page.Result[ProductView]{}, err
	}
	r, err := page.Find(ctx, s.env.DB.Collection("products"), bson.M{"storeId": a.StoreID}, page.Sort{Field: "creationTime"}, a.PaginationOpts,
		func(p *Product) (any, string) { return p.CreationTime, p.ID })
	if err != nil {
		return page.Result[ProductView]{}, err
	}
	return page.Map(r, func(p *Product) ProductView { return p.view() }), nil
}

type ensureCategoriesArgs struct {
	Names []string `json:"names" op:"required,nonblank,min=1,max=50"`
}

// ensureCategories finds or creates categories by name; concurrent callers agree
// on one record per name because the name key is unique.
func (s *svc) ensureCategories(ctx context.Context, a *ensureCategoriesArgs) (map[string]string, error) {
	out := make(map[string]string, len(a.Names))
	for _, n := range a.Names {
		n = strings.TrimSpace(n)
		var c Category
		err := s.env.DB.Collection("categories").FindOne(ctx, bson.M{"nameKey": nameKey(n)}).Decode(&c)
		if store.IsNotFound(err) {
			c = Category{ID: ids.New("categories"), Name: n, NameKey: nameKey(n), CreationTime: now()}
			_, err = s.env.DB.Collection("categories").InsertOne(ctx, c)
			if store.IsDuplicate(err) {
				err = s.env.DB.Collection("categories").FindOne(ctx, bson.M{"nameKey": nameKey(n)}).Decode(&c)
			}
		}
		if err != nil {
			return nil, err
		}
		out[n] = c.ID
	}
	return out, nil
}

type resolveLocationsArgs struct {
	Cities []string `json:"cities" op:"id=cities,max=500"`
	Areas  []string `json:"areas" op:"id=areas,max=500"`
}

func (s *svc) resolveLocations(ctx context.Context, a *resolveLocationsArgs) (*Locations, error) {
	out := &Locations{Cities: map[string]Place{}, Areas: map[string]Place{}}
	if len(a.Cities) > 0 {
		cs, err := findAll[City](ctx, s, "cities", bson.M{"_id": bson.M{"$in": a.Cities}}, bson.D{{Key: "_id", Value: 1}})
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out.Cities[c.ID] = c.place()
		}
	}
	if len(a.Areas) > 0 {
		as, err := findAll[Area](ctx, s, "areas", bson.M{"_id": bson.M{"$in": a.Areas}}, bson.D{{Key: "_id", Value: 1}})
		if err != nil {
			return nil, err
		}
		for _, ar := range as {
			out.Areas[ar.ID] = ar.place()
		}
	}
	return out, nil
}

type getCategoriesArgs struct {
	CategoryIDs []string `json:"categoryIds" op:"required,id=categories,max=500"`
}

func (s *svc) getCategories(ctx context.Context, a *getCategoriesArgs) (map[string]Category, error) {
	cs, err := findAll[Category](ctx, s, "categories", bson.M{"_id": bson.M{"$in": a.CategoryIDs}}, bson.D{{Key: "_id", Value: 1}})
	out := make(map[string]Category, len(cs))
	for _, c := range cs {
		out[c.ID] = c
	}
	return out, err
}

type getProductsArgs struct {
	ProductIDs []string `json:"productIds" op:"required,id=products,max=500"`
}

func (s *svc) getProducts(ctx context.Context, a *getProductsArgs) (map[string]ProductView, error) {
	ps, err := findAll[Product](ctx, s, "products", bson.M{"_id": bson.M{"$in": a.ProductIDs}}, bson.D{{Key: "_id", Value: 1}})
	out := make(map[string]ProductView, len(ps))
	for i := range ps {
		out[ps[i].ID] = ps[i].view()
	}
	return out, err
}
