// Package catalog is the reference-data service: cities, areas, categories, stores
// and products. Other services validate against it through its operations.
package catalog

import (
	"context"
	"fmt"

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
	"marketplace/services/catalog/domain"
	"marketplace/services/catalog/storage"
)

// Module is the catalog service.
// It follows the platform configuration's events for the search radii
// (searchsettings.go): the configuration service calls the catalog, so the
// catalog cannot call it back.
var Module = service.Module{Name: contract.Service, Build: build, Publishes: []string{contract.Topic}, Consumes: []string{platformconfig.Topic}}

type svc struct {
	env      service.Env
	places   *storage.Places
	stores   *storage.Stores
	products *storage.Products
	settings *storage.Settings
	// settingsStatus is the search settings consumer's health.
	settingsStatus *events.ConsumerStatus
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := newSvc(env)
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
			ops.NewQuery("catalog.stores.listStores", ops.Public, "Stores by name, optionally of a category, city or area, or whose name starts with search (any case; paginated).", s.listStores),
			ops.NewQuery("catalog.stores.searchNearby", ops.Public, "Open stores within a radius of a point, nearest first, each with distanceKm.", s.searchNearby,
				ops.Errors(apperr.FailedPrecondition)), // no configuration in force: no radius
			ops.NewQuery("catalog.locations.listCities", ops.Public, "All cities by name.", s.listCities),
			ops.NewQuery("catalog.locations.listAreas", ops.Public, "Areas of a city by name.", s.listAreas),
			ops.NewQuery("catalog.categories.listCategories", ops.Public, "All categories by name.", s.listCategories),
			ops.NewQuery("stores.catalog.getStore", ops.Public, "A store, or null.", s.getStore),
			ops.NewMutation("stores.products.createProduct", ops.StoreOwner, fmt.Sprintf("Add a product to the caller's store (a store keeps at most %d products: beyond, FAILED_PRECONDITION with details.reason too_many_products).", MaxProductsPerStore), s.createProduct, ops.StoreArg("storeId")),
			ops.NewQuery("stores.products.listProductsPaginated", ops.Public, "A store's products in the order they were added (paginated); optional: sort (added, newest, price, price_desc), available (true or false), search (a part of the name, any case, 2 to 100 characters).", s.listProductsPaginated),
			ops.NewQuery("stores.products.listProducts", ops.Public, fmt.Sprintf("A store's products in the order they were added, all in one array: at most %d (the products a store keeps).", MaxProductsPerStore), s.listProducts,
				ops.Deprecated("replaced by stores.products.listProductsPaginated (the same products, in pages); kept at least 30 days after the release that added it and until no client calls it, then removed in a major release of the public contract")),
			ops.NewMutation("stores.products.updateProduct", ops.StoreOwner, "Change a product's name, price or availability (orders and cart lines keep their prices); returns the product.", s.updateProduct,
				ops.StoreVia("productId", s.storeOfProduct)),
			ops.NewQuery("catalog.categories.getCategories", ops.Internal, "Categories by id, in one call.", s.getCategories, ops.CalledBy("platformconfig")),
			ops.NewMutation("catalog.categories.ensureByName", ops.Internal, "Find or create categories by name.", s.ensureCategories, ops.CalledBy("platformconfig")),
			ops.NewQuery("catalog.locations.resolve", ops.Internal, "Cities and areas by id, in one call.", s.resolveLocations, ops.CalledBy("addresses", "customers")),
			ops.NewQuery("catalog.products.getProducts", ops.Internal, "Products by id, in one call.", s.getProducts, ops.CalledBy("customers")),
			ops.NewQuery(contract.OpGetStoreContacts, ops.Internal, "Stores by id with their owner's name and phone, as committed (the payouts service's listings; the store owners' access checks of payouts, customers, reviews and payments).", s.getStoreContacts,
				ops.CalledBy("payouts", "customers", "reviews", "payments", "notifications")),
		).WithResolvers(ops.Resolvers{Store: s.storeRef}),
		Indexes: append(storage.Indexes(), events.ConsumerIndexes()...),
	}, nil
}

// newSvc is the service on env, with its repositories.
func newSvc(env service.Env) *svc {
	return &svc{env: env, places: storage.NewPlaces(env.DB), stores: storage.NewStores(env.DB), products: storage.NewProducts(env.DB),
		settings: storage.NewSettings(env.DB), settingsStatus: events.NewConsumerStatus(0)}
}

// now is the service's clock, in millis.
func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

// withEvent runs fn and adds the event it returns to the outbox, in one
// transaction, then kicks the relay.
func (s *svc) withEvent(ctx context.Context, fn func(ctx context.Context) (eventType, key string, data any, err error)) error {
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		t, key, data, err := fn(ctx)
		if err != nil {
			return err
		}
		_, err = s.env.Outbox.Add(ctx, Topic, t, key, data)
		return err
	})
	if err == nil {
		s.env.Relay.Kick()
	}
	return err
}

type createCityArgs struct {
	Name       string `json:"name" op:"required,nonblank,max=100"`
	NameArabic string `json:"nameArabic" op:"required,nonblank,max=100"`
}

func (s *svc) createCity(ctx context.Context, a *createCityArgs) (string, error) {
	c := domain.NewCity(ids.New("cities"), a.Name, a.NameArabic, s.now())
	return c.ID, s.withEvent(ctx, func(ctx context.Context) (string, string, any, error) {
		return contract.EventCityCreated, c.ID, cityPlace(&c), s.places.InsertCity(ctx, c)
	})
}

type updateCityArgs struct {
	CityID     string  `json:"cityId" op:"required,id=cities"`
	Name       *string `json:"name" op:"nonblank,max=100"`
	NameArabic *string `json:"nameArabic" op:"nonblank,max=100"`
}

// updateCity renames a city; services that show city names hear it as city.updated.
func (s *svc) updateCity(ctx context.Context, a *updateCityArgs) (ops.Null, error) {
	return nil, s.withEvent(ctx, func(ctx context.Context) (string, string, any, error) {
		c, err := s.places.UpdateCity(ctx, a.CityID, func(c *City) error { c.Rename(a.Name, a.NameArabic); return nil })
		if err != nil {
			return "", "", nil, err
		}
		return contract.EventCityUpdated, c.ID, cityPlace(c), nil
	})
}

type updateAreaArgs struct {
	AreaID string `json:"areaId" op:"required,id=areas"`
	Name   string `json:"name" op:"required,nonblank,max=100"`
}

// updateArea renames an area (it stays in its city).
func (s *svc) updateArea(ctx context.Context, a *updateAreaArgs) (ops.Null, error) {
	return nil, s.withEvent(ctx, func(ctx context.Context) (string, string, any, error) {
		ar, err := s.places.UpdateArea(ctx, a.AreaID, func(ar *Area) error { ar.Rename(a.Name); return nil })
		if err != nil {
			return "", "", nil, err
		}
		return contract.EventAreaUpdated, ar.ID, areaPlace(ar), nil
	})
}

type createAreaArgs struct {
	Name string `json:"name" op:"required,nonblank,max=100"`
	City string `json:"city" op:"required,id=cities"`
}

func (s *svc) createArea(ctx context.Context, a *createAreaArgs) (string, error) {
	if _, err := s.places.City(ctx, a.City); err != nil {
		return "", err
	}
	ar := domain.NewArea(ids.New("areas"), a.Name, a.City, s.now())
	return ar.ID, s.withEvent(ctx, func(ctx context.Context) (string, string, any, error) {
		return contract.EventAreaCreated, ar.ID, areaPlace(&ar), s.places.InsertArea(ctx, ar)
	})
}

type createCategoryArgs struct {
	Name       string  `json:"name" op:"required,nonblank,max=100"`
	NameArabic *string `json:"nameArabic" op:"max=100"`
}

func (s *svc) createCategory(ctx context.Context, a *createCategoryArgs) (string, error) {
	c := domain.NewCategory(ids.New("categories"), a.Name, a.NameArabic, s.now())
	return c.ID, s.places.InsertCategory(ctx, c)
}

func (s *svc) listCities(ctx context.Context, _ *ops.NoArgs) ([]City, error) {
	return s.places.Cities(ctx)
}

type listAreasArgs struct {
	City string `json:"city" op:"required,id=cities"`
}

func (s *svc) listAreas(ctx context.Context, a *listAreasArgs) ([]Area, error) {
	if _, err := s.places.City(ctx, a.City); err != nil {
		return nil, err
	}
	return s.places.Areas(ctx, a.City)
}

func (s *svc) listCategories(ctx context.Context, _ *ops.NoArgs) ([]Category, error) {
	return s.places.Categories(ctx)
}

// storeRef resolves stores for the access levels from the catalog's own records.
func (s *svc) storeRef(ctx context.Context, id string) (*ops.StoreRef, error) {
	st, err := s.stores.Find(ctx, id)
	if st == nil {
		return nil, err
	}
	return &ops.StoreRef{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, Version: st.StoreVersion()}, nil
}

type createProductArgs struct {
	StoreID     string     `json:"storeId" op:"required,id=stores"`
	Name        string     `json:"name" op:"required,nonblank,max=200"`
	Price       money.Fils `json:"price" op:"required,min=0.01,max=1000000"`
	IsAvailable *bool      `json:"isAvailable"`
}

// createProduct is for the store's owner only (administrators too only when
// they own the store): the registry checked it. A store past the cap is
// refused (FAILED_PRECONDITION, reason too_many_products), nothing written.
func (s *svc) createProduct(ctx context.Context, a *createProductArgs) (string, error) {
	id, storeID, now := ids.New("products"), ops.StoreOf(ctx).ID, s.now()
	p, err := s.products.Create(ctx, storeID, func(count int64) (Product, error) {
		return domain.NewProduct(id, storeID, a.Name, a.Price, a.IsAvailable, count, now)
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
	p, err := s.products.Get(ctx, productID)
	if err != nil {
		return "", err
	}
	return p.StoreID, nil
}

// updateProduct changes a product for the store's owner (the registry
// checked). Orders and cart lines copied the price when they were made, so
// a new price reaches a cart line only when the product is added again.
func (s *svc) updateProduct(ctx context.Context, a *updateProductArgs) (*ProductView, error) {
	c := domain.ProductChange{Name: a.Name, Price: a.Price, IsAvailable: a.IsAvailable}
	if err := c.Check(); err != nil {
		return nil, err
	}
	p, err := s.products.Update(ctx, a.ProductID, ops.StoreOf(ctx).ID, func(p *Product) error { return p.Apply(c) })
	if err != nil {
		return nil, err
	}
	v := productView(p)
	return &v, nil
}

// listProducts is the deprecated one-array listing: the store's products in
// the order they were added, at most MaxProductsPerStore of them (a store
// that had more before the cap shows its first ones; the pages show all).
func (s *svc) listProducts(ctx context.Context, a *storeArgs) ([]ProductView, error) {
	if _, err := s.stores.Get(ctx, a.StoreID); err != nil {
		return nil, err
	}
	ps, err := s.products.OfStore(ctx, a.StoreID, MaxProductsPerStore)
	if err != nil {
		return nil, err
	}
	out := make([]ProductView, len(ps))
	for i := range ps {
		out[i] = productView(&ps[i])
	}
	return out, nil
}

type listProductsPaginatedArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	Search         *string   `json:"search" op:"max=400"`
	Available      *bool     `json:"available"`
	Sort           *string   `json:"sort" op:"enum=added|newest|price|price_desc"`
}

// listProductsPaginated pages a store's products in the order they were
// added (creation time, then id) unless sort says otherwise, at most
// page.MaxItems a page; of one availability, and whose name holds search
// (any case), when given (domain.ProductList).
func (s *svc) listProductsPaginated(ctx context.Context, a *listProductsPaginatedArgs) (page.Result[ProductView], error) {
	l, err := domain.NewProductList(a.Search, a.Available, a.Sort)
	if err != nil {
		return page.Result[ProductView]{}, err
	}
	if _, err := s.stores.Get(ctx, a.StoreID); err != nil {
		return page.Result[ProductView]{}, err
	}
	r, err := s.products.ListOfStore(ctx, a.StoreID, l, a.PaginationOpts)
	if err != nil {
		return page.Result[ProductView]{}, err
	}
	return page.Map(r, productView), nil
}

type ensureCategoriesArgs struct {
	Names []string `json:"names" op:"required,nonblank,min=1,max=50"`
}

// ensureCategories finds or creates categories by name; concurrent callers agree
// on one record per name because the name key is unique.
func (s *svc) ensureCategories(ctx context.Context, a *ensureCategoriesArgs) (map[string]string, error) {
	out := make(map[string]string, len(a.Names))
	for _, n := range a.Names {
		c := domain.NewCategory(ids.New("categories"), n, nil, s.now())
		id, err := s.places.EnsureCategory(ctx, c)
		if err != nil {
			return nil, err
		}
		out[c.Name] = id
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
		cs, err := s.places.CitiesByID(ctx, a.Cities)
		if err != nil {
			return nil, err
		}
		for i := range cs {
			out.Cities[cs[i].ID] = cityPlace(&cs[i])
		}
	}
	if len(a.Areas) > 0 {
		as, err := s.places.AreasByID(ctx, a.Areas)
		if err != nil {
			return nil, err
		}
		for i := range as {
			out.Areas[as[i].ID] = areaPlace(&as[i])
		}
	}
	return out, nil
}

type getCategoriesArgs struct {
	CategoryIDs []string `json:"categoryIds" op:"required,id=categories,max=500"`
}

func (s *svc) getCategories(ctx context.Context, a *getCategoriesArgs) (map[string]Category, error) {
	cs, err := s.places.CategoriesByID(ctx, a.CategoryIDs)
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
	ps, err := s.products.ByID(ctx, a.ProductIDs)
	out := make(map[string]ProductView, len(ps))
	for i := range ps {
		out[ps[i].ID] = productView(&ps[i])
	}
	return out, err
}
