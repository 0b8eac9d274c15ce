// Package addresses owns customers' delivery addresses: at most one default per
// customer (held by a unique partial index), cities and areas checked against the
// catalog, and every address visible only to its own customer.
package addresses

import (
	"context"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/addresses"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/addresses/domain"
	"marketplace/services/addresses/storage"
)

// Module is the addresses service.
var Module = service.Module{Name: "addresses", Build: build, Consumes: []string{catalog.Topic},
	Calls: []string{catalog.Service, customers.Service}}

type svc struct {
	env       service.Env
	addresses *storage.Addresses
	places    *storage.Places
	catalog   *catalog.Client
	customers *customers.Client
	// placesStatus is the projection consumer's health (places.go).
	placesStatus *events.ConsumerStatus
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, addresses: storage.NewAddresses(env.DB), places: storage.NewPlaces(env.DB), catalog: catalog.NewClient(env.Calls), customers: customers.NewClient(env.Calls), placesStatus: events.NewConsumerStatus(0)}
	return &service.Built{
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{s.placesCheck()},
		Registry: ops.NewRegistry("addresses",
			ops.NewMutation("customers.addresses.createAddress", ops.Customer, "Add a delivery address to the caller's profile (customerId: the caller's, from customers.profile.upsertMyProfile). city and area are the ids of the catalog's city and area (the argument is city, not cityId); latitude and longitude are strings of decimal degrees, such as \"25.2048\" and \"55.2708\" (a number is refused).", s.create),
			ops.NewMutation("customers.addresses.updateAddress", ops.Customer, "Change the provided fields of one of the caller's addresses (latitude and longitude as strings, such as \"25.2048\").", s.update),
			ops.NewMutation("customers.addresses.deleteAddress", ops.Customer, "Delete one of the caller's addresses.", s.delete),
			ops.NewQuery("customers.addresses.getCustomerAddresses", ops.Customer, "The caller's active addresses, default first.", s.list),
			ops.NewQuery("customers.addresses.getAddress", ops.Customer, "One of the caller's addresses, or null.", s.get),
			ops.NewMutation("customers.addresses.setDefaultAddress", ops.Customer, "Make one of the caller's addresses the default.", s.setDefault),
		).WithResolvers(ops.Resolvers{Customer: s.customers.CustomerRef}),
		Indexes: append(storage.Indexes(), events.ConsumerIndexes()...),
	}, nil
}

// now is the service's clock, in millis.
func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

// Address is an address as clients see it (section 2.5), with its city and
// area (CityRef, AreaRef): declared in the contract, which other services read
// it by.
type (
	Address = contract.Address
	CityRef = contract.CityRef
	AreaRef = contract.AreaRef
)

// customerOf is the caller's customer profile id ("" in a query of a caller
// who has none yet; the registry refused a mutation of such a caller).
func customerOf(ctx context.Context) string {
	if c := ops.CustomerOf(ctx); c != nil {
		return c.ID
	}
	return ""
}

// owned loads an address of the caller: NOT_FOUND when missing, PERMISSION_DENIED
// when it is someone else's.
func (s *svc) owned(ctx context.Context, addressID string) (*domain.Address, error) {
	a, err := s.addresses.Get(ctx, addressID)
	if err != nil {
		return nil, err
	}
	if err := a.OwnedBy(customerOf(ctx)); err != nil {
		return nil, err
	}
	return a, nil
}

// checkPlace asks the catalog itself (not the projection, which may lag by an
// event) that the city and the area exist and that the area lies in the city.
func (s *svc) checkPlace(ctx context.Context, city, area string) error {
	l, err := s.resolve(ctx, []string{city}, []string{area})
	if err != nil {
		return err
	}
	return domain.CheckPlace(placesOf(l.Cities), placesOf(l.Areas), city, area)
}

type createArgs struct {
	CustomerID         string  `json:"customerId" op:"required,id=customers"`
	Name               string  `json:"name" op:"required,nonblank,max=100"`
	FullAddress        string  `json:"fullAddress" op:"required,nonblank,max=500"`
	City               string  `json:"city" op:"required,id=cities"`
	Area               string  `json:"area" op:"required,id=areas"`
	FlatVilaNumber     *string `json:"flatVilaNumber" op:"max=50"`
	BuildingNameNumber *string `json:"buildingNameNumber" op:"max=100"`
	Landmark           *string `json:"landmark" op:"max=200"`
	Latitude           *string `json:"latitude" op:"max=32"`
	Longitude          *string `json:"longitude" op:"max=32"`
	IsDefault          *bool   `json:"isDefault"`
}

func (s *svc) create(ctx context.Context, a *createArgs) (string, error) {
	customer := customerOf(ctx)
	if err := domain.CheckCustomer(a.CustomerID, customer); err != nil {
		return "", err
	}
	if err := domain.CheckCoordinates(a.Latitude, a.Longitude); err != nil {
		return "", err
	}
	if err := s.checkPlace(ctx, a.City, a.Area); err != nil {
		return "", err
	}
	now := s.now()
	d, err := domain.NewAddress(ids.New("customerAddresses"), customer, domain.Draft{
		Name: a.Name, FullAddress: a.FullAddress, City: a.City, Area: a.Area, FlatVilaNumber: a.FlatVilaNumber,
		BuildingNameNumber: a.BuildingNameNumber, Landmark: a.Landmark, Latitude: a.Latitude, Longitude: a.Longitude,
	}, now)
	if err != nil {
		return "", err
	}
	err = s.addresses.UpdateBook(ctx, customer, func(b *domain.Book) error { return b.Add(d, a.IsDefault, now) })
	if err != nil {
		return "", err
	}
	return d.ID, nil
}

type updateArgs struct {
	AddressID          string  `json:"addressId" op:"required,id=customerAddresses"`
	Name               *string `json:"name" op:"nonblank,max=100"`
	FullAddress        *string `json:"fullAddress" op:"nonblank,max=500"`
	City               *string `json:"city" op:"id=cities"`
	Area               *string `json:"area" op:"id=areas"`
	FlatVilaNumber     *string `json:"flatVilaNumber" op:"max=50"`
	BuildingNameNumber *string `json:"buildingNameNumber" op:"max=100"`
	Landmark           *string `json:"landmark" op:"max=200"`
	Latitude           *string `json:"latitude" op:"max=32"`
	Longitude          *string `json:"longitude" op:"max=32"`
	IsDefault          *bool   `json:"isDefault"`
	IsActive           *bool   `json:"isActive"`
}

// update checks the change against the address as read, then writes it only if
// the fields those checks relied on are still as read (city, area, active); if a
// concurrent update changed them, it starts over with the new state.
func (s *svc) update(ctx context.Context, a *updateArgs) (ops.Null, error) {
	return store.Retry(ctx, "the address", func(ctx context.Context) (ops.Null, error) {
		return nil, s.tryUpdate(ctx, a)
	})
}

func (s *svc) tryUpdate(ctx context.Context, a *updateArgs) error {
	d, err := s.owned(ctx, a.AddressID)
	if err != nil {
		return err
	}
	c := domain.Change{
		Name: a.Name, FullAddress: a.FullAddress, City: a.City, Area: a.Area, FlatVilaNumber: a.FlatVilaNumber,
		BuildingNameNumber: a.BuildingNameNumber, Landmark: a.Landmark, Latitude: a.Latitude, Longitude: a.Longitude,
		IsDefault: a.IsDefault, IsActive: a.IsActive,
	}
	if err := d.Check(c); err != nil {
		return err
	}
	if city, area, changed := d.Place(c); changed {
		if err := s.checkPlace(ctx, city, area); err != nil {
			return err
		}
	}
	// The book as committed now: if the address's city, area or activity
	// changed since the checks above, ErrStale starts them over.
	return s.addresses.UpdateBook(ctx, d.CustomerID, func(b *domain.Book) error { return b.Update(d.ID, c, *d, s.now()) })
}

type addressIDArgs struct {
	AddressID string `json:"addressId" op:"required,id=customerAddresses"`
}

func (s *svc) delete(ctx context.Context, a *addressIDArgs) (ops.Null, error) {
	d, err := s.owned(ctx, a.AddressID)
	if err != nil {
		return nil, err
	}
	return nil, s.addresses.UpdateBook(ctx, d.CustomerID, func(b *domain.Book) error { return b.Delete(d.ID, s.now()) })
}

func (s *svc) setDefault(ctx context.Context, a *addressIDArgs) (ops.Null, error) {
	d, err := s.owned(ctx, a.AddressID)
	if err != nil {
		return nil, err
	}
	if err := d.CheckCanBeDefault(); err != nil {
		return nil, err
	}
	return nil, s.addresses.UpdateBook(ctx, d.CustomerID, func(b *domain.Book) error { return b.SetDefaultAsSeen(d.ID, s.now()) })
}

type listArgs struct {
	CustomerID *string `json:"customerId" op:"id=customers"`
}

func (s *svc) list(ctx context.Context, a *listArgs) ([]Address, error) {
	customer := customerOf(ctx)
	if a.CustomerID != nil {
		if err := domain.CheckCustomer(*a.CustomerID, customer); err != nil {
			return nil, err
		}
	}
	if customer == "" {
		return []Address{}, nil
	}
	docs, err := s.addresses.ListActive(ctx, customer)
	if err != nil {
		return nil, err
	}
	return s.views(ctx, docs, false)
}

func (s *svc) get(ctx context.Context, a *addressIDArgs) (*Address, error) {
	d, err := s.owned(ctx, a.AddressID)
	if apperr.Is(err, apperr.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := s.views(ctx, []domain.Address{*d}, true)
	if err != nil {
		return nil, err
	}
	return &v[0], nil
}

// views renders addresses with their city and area from the places projection
// (one local read), which the catalog's events keep current.
func (s *svc) views(ctx context.Context, docs []domain.Address, withCustomer bool) ([]Address, error) {
	out := make([]Address, len(docs))
	if len(docs) == 0 {
		return out, nil
	}
	cities, areas := make([]string, 0, len(docs)), make([]string, 0, len(docs))
	seen := map[string]bool{}
	for _, d := range docs {
		if !seen[d.City] {
			seen[d.City] = true
			cities = append(cities, d.City)
		}
		if !seen[d.Area] {
			seen[d.Area] = true
			areas = append(areas, d.Area)
		}
	}
	places, err := s.placesByID(ctx, cities, areas)
	if err != nil {
		return nil, err
	}
	for i, d := range docs {
		v := Address{
			ID: d.ID, CreationTime: d.CreationTime, Name: d.Name, FullAddress: d.FullAddress,
			FlatVilaNumber: d.FlatVilaNumber, BuildingNameNumber: d.BuildingNameNumber, Landmark: d.Landmark,
			Latitude: d.Latitude, Longitude: d.Longitude, IsDefault: d.IsDefault, IsActive: d.IsActive,
		}
		if withCustomer {
			v.CustomerID = d.CustomerID
		}
		if c, ok := places[d.City]; ok {
			v.City = &CityRef{ID: c.ID, Name: c.Name, NameArabic: c.NameArabic}
		}
		if ar, ok := places[d.Area]; ok {
			v.Area = &AreaRef{ID: ar.ID, Name: ar.Name, City: ar.City}
		}
		out[i] = v
	}
	return out, nil
}
