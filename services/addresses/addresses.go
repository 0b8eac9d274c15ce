// Package addresses owns customers' delivery addresses: at most one default per
// customer (held by a unique partial index), cities and areas checked against the
// catalog, and every address visible only to its own customer.
package addresses

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

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
)

// Module is the addresses service.
var Module = service.Module{Name: "addresses", Build: build, Consumes: []string{catalog.Topic},
	Calls: []string{catalog.Service, customers.Service}}

const (
	coll     = "customerAddresses"
	counters = "addressCounts"
)

type svc struct {
	env       service.Env
	catalog   *catalog.Client
	customers *customers.Client
	// placesStatus is the projection consumer's health (places.go).
	placesStatus *events.ConsumerStatus
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, catalog: catalog.NewClient(env.Calls), customers: customers.NewClient(env.Calls), placesStatus: events.NewConsumerStatus(0)}
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
		Indexes: append([]store.Index{
			// At most one default per customer, whatever the interleaving of writes.
			{Collection: coll, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "isDefault", Value: 1}}, Unique: true,
				Partial: bson.M{"isDefault": true}, Name: "one_default_per_customer"},
			// A customer's active addresses, default first, newest first (list).
			// (Ids are random: newest is creationTime's, the id breaks ties.)
			{Collection: coll, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "isActive", Value: 1}, {Key: "isDefault", Value: -1},
				{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "active_default_first_newest"},
		}, events.ConsumerIndexes()...),
	}, nil
}

func now() int64 { return time.Now().UnixMilli() }

type addressDoc struct {
	ID                 string  `bson:"_id"`
	CustomerID         string  `bson:"customerId"`
	Name               string  `bson:"name"`
	FullAddress        string  `bson:"fullAddress"`
	City               string  `bson:"city"`
	Area               string  `bson:"area"`
	FlatVilaNumber     *string `bson:"flatVilaNumber,omitempty"`
	BuildingNameNumber *string `bson:"buildingNameNumber,omitempty"`
	Landmark           *string `bson:"landmark,omitempty"`
	Latitude           *string `bson:"latitude,omitempty"`
	Longitude          *string `bson:"longitude,omitempty"`
	IsDefault          bool    `bson:"isDefault"`
	IsActive           bool    `bson:"isActive"`
	CreationTime       int64   `bson:"creationTime"`
	UpdatedAt          int64   `bson:"updatedAt"`
}

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

func denied() error {
	return apperr.New(apperr.PermissionDenied, "the address belongs to another customer")
}

// owned loads an address of the caller: NOT_FOUND when missing, PERMISSION_DENIED
// when it is someone else's.
func (s *svc) owned(ctx context.Context, addressID string) (*addressDoc, error) {
	customer := customerOf(ctx)
	var d addressDoc
	err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": addressID}).Decode(&d)
	if store.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "address %s does not exist", addressID)
	}
	if err != nil {
		return nil, err
	}
	if d.CustomerID != customer {
		return nil, denied()
	}
	return &d, nil
}

// allPlaces are the places of l, as the projection stores them.
func allPlaces(l *catalog.Locations) []place {
	out := make([]place, 0, len(l.Cities)+len(l.Areas))
	for _, p := range l.Cities {
		out = append(out, placeOf(p))
	}
	for _, p := range l.Areas {
		out = append(out, placeOf(p))
	}
	return out
}

// resolve reads cities and areas from the catalog in one call and refreshes the
// projection with the answer.
func (s *svc) resolve(ctx context.Context, cities, areas []string) (*catalog.Locations, error) {
	l, err := s.catalog.ResolvePlaces(ctx, cities, areas)
	if err != nil {
		return nil, err
	}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error { return s.applyPlaces(ctx, allPlaces(l)...) })
	return l, err
}

// checkPlace asks the catalog itself (not the projection, which may lag by an
// event) that the city and the area exist and that the area lies in the city.
func (s *svc) checkPlace(ctx context.Context, city, area string) error {
	l, err := s.resolve(ctx, []string{city}, []string{area})
	if err != nil {
		return err
	}
	if _, ok := l.Cities[city]; !ok {
		return apperr.New(apperr.NotFound, "city %s does not exist", city)
	}
	a, ok := l.Areas[area]
	if !ok {
		return apperr.New(apperr.NotFound, "area %s does not exist", area)
	}
	if a.City != city {
		return apperr.Invalid("area", "%s lies in another city than %s", area, city)
	}
	return nil
}

// makeDefault moves the customer's default to addressID ("" for none). It runs
// inside a transaction: the old default is cleared before the new one is set, so
// the unique index never sees two.
func (s *svc) makeDefault(ctx context.Context, customerID, addressID string) error {
	c := s.env.DB.Collection(coll)
	if _, err := c.UpdateMany(ctx, bson.M{"customerId": customerID, "isDefault": true, "_id": bson.M{"$ne": addressID}},
		bson.M{"$set": bson.M{"isDefault": false, "updatedAt": now()}}); err != nil {
		return err
	}
	if addressID == "" {
		return nil
	}
	res, err := c.UpdateOne(ctx, bson.M{"_id": addressID, "isActive": true}, bson.M{"$set": bson.M{"isDefault": true, "updatedAt": now()}})
	if err == nil && res.MatchedCount != 1 {
		err = apperr.New(apperr.FailedPrecondition, "address %s was deleted or deactivated meanwhile", addressID)
	}
	return err
}

// promoteSuccessor gives the customer a new default after the default left.
func (s *svc) promoteSuccessor(ctx context.Context, customerID, leaving string) error {
	cur, err := s.env.DB.Collection(coll).Find(ctx, bson.M{"customerId": customerID, "isActive": true})
	if err != nil {
		return err
	}
	var docs []addressDoc
	if err := cur.All(ctx, &docs); err != nil {
		return err
	}
	return s.makeDefault(ctx, customerID, successor(docs, leaving))
}

func trimmed(p *string) *string {
	if p == nil {
		return nil
	}
	v := strings.TrimSpace(*p)
	return &v
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
	if a.CustomerID != customer {
		return "", apperr.New(apperr.PermissionDenied, "customerId is not the caller's customer profile")
	}
	if err := checkCoordinate("latitude", a.Latitude, 90); err != nil {
		return "", err
	}
	if err := checkCoordinate("longitude", a.Longitude, 180); err != nil {
		return "", err
	}
	if err := s.checkPlace(ctx, a.City, a.Area); err != nil {
		return "", err
	}
	d := addressDoc{
		ID: ids.New("customerAddresses"), CustomerID: customer, Name: strings.TrimSpace(a.Name), FullAddress: strings.TrimSpace(a.FullAddress),
		City: a.City, Area: a.Area, FlatVilaNumber: trimmed(a.FlatVilaNumber), BuildingNameNumber: trimmed(a.BuildingNameNumber),
		Landmark: trimmed(a.Landmark), Latitude: trimmed(a.Latitude), Longitude: trimmed(a.Longitude),
		IsActive: true, CreationTime: now(), UpdatedAt: now(),
	}
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		// The per-customer count is one conditional upsert: past the cap the filter
		// misses, the upsert collides with the existing count, and nothing is written.
		_, err := s.env.DB.Collection(counters).UpdateOne(ctx, bson.M{"_id": customer, "count": bson.M{"$lt": MaxAddresses}},
			bson.M{"$inc": bson.M{"count": 1}}, options.Update().SetUpsert(true))
		if store.IsDuplicate(err) {
			return apperr.New(apperr.FailedPrecondition, "a customer keeps at most %d addresses", MaxAddresses)
		}
		if err != nil {
			return err
		}
		// The first address becomes the default unless the caller says otherwise.
		makeDefault := a.IsDefault != nil && *a.IsDefault
		if a.IsDefault == nil {
			n, err := s.env.DB.Collection(coll).CountDocuments(ctx, bson.M{"customerId": customer, "isDefault": true})
			if err != nil {
				return err
			}
			makeDefault = n == 0
		}
		if makeDefault {
			if err := s.makeDefault(ctx, customer, ""); err != nil {
				return err
			}
		}
		// Set on every attempt: a transaction retried after a write conflict
		// runs this function again, and an earlier attempt's default must not
		// stay (it met the unique index as a 500).
		d.IsDefault = makeDefault
		_, err = s.env.DB.Collection(coll).InsertOne(ctx, d)
		return err
	})
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
	if err := checkCoordinate("latitude", a.Latitude, 90); err != nil {
		return err
	}
	if err := checkCoordinate("longitude", a.Longitude, 180); err != nil {
		return err
	}
	active := d.IsActive
	if a.IsActive != nil {
		active = *a.IsActive
	}
	if a.IsDefault != nil && *a.IsDefault && !active {
		return apperr.Invalid("isDefault", "an inactive address cannot be the default")
	}
	if a.City != nil || a.Area != nil {
		city, area := d.City, d.Area
		if a.City != nil {
			city = *a.City
		}
		if a.Area != nil {
			area = *a.Area
		}
		if err := s.checkPlace(ctx, city, area); err != nil {
			return err
		}
	}
	set := bson.M{"updatedAt": now()}
	for k, v := range map[string]*string{"name": a.Name, "fullAddress": a.FullAddress, "city": a.City, "area": a.Area,
		"flatVilaNumber": a.FlatVilaNumber, "buildingNameNumber": a.BuildingNameNumber, "landmark": a.Landmark,
		"latitude": a.Latitude, "longitude": a.Longitude} {
		if v != nil {
			set[k] = *trimmed(v)
		}
	}
	if a.IsActive != nil {
		set["isActive"] = *a.IsActive
	}
	return s.env.DB.Tx(ctx, func(ctx context.Context) error {
		// Re-read inside the transaction: the default may have moved since.
		var cur addressDoc
		if err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": d.ID}).Decode(&cur); err != nil {
			if store.IsNotFound(err) {
				return apperr.New(apperr.NotFound, "address %s does not exist", d.ID)
			}
			return err
		}
		res, err := s.env.DB.Collection(coll).UpdateOne(ctx,
			bson.M{"_id": d.ID, "city": d.City, "area": d.Area, "isActive": d.IsActive}, bson.M{"$set": set})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return store.ErrConflict
		}
		switch {
		case a.IsDefault != nil && *a.IsDefault:
			return s.makeDefault(ctx, d.CustomerID, d.ID)
		case !active && cur.IsDefault:
			// A deactivated default hands over to the most recent other active address.
			return s.promoteSuccessor(ctx, d.CustomerID, d.ID)
		case a.IsDefault != nil && !*a.IsDefault && cur.IsDefault:
			// Asked explicitly: the customer has no default afterwards.
			return s.makeDefault(ctx, d.CustomerID, "")
		}
		return nil
	})
}

type addressIDArgs struct {
	AddressID string `json:"addressId" op:"required,id=customerAddresses"`
}

func (s *svc) delete(ctx context.Context, a *addressIDArgs) (ops.Null, error) {
	d, err := s.owned(ctx, a.AddressID)
	if err != nil {
		return nil, err
	}
	return nil, s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var gone addressDoc
		err := s.env.DB.Collection(coll).FindOneAndDelete(ctx, bson.M{"_id": d.ID}).Decode(&gone)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "address %s does not exist", d.ID)
		}
		if err != nil {
			return err
		}
		if _, err := s.env.DB.Collection(counters).UpdateOne(ctx, bson.M{"_id": d.CustomerID}, bson.M{"$inc": bson.M{"count": -1}}); err != nil {
			return err
		}
		if gone.IsDefault {
			return s.promoteSuccessor(ctx, d.CustomerID, d.ID)
		}
		return nil
	})
}

func (s *svc) setDefault(ctx context.Context, a *addressIDArgs) (ops.Null, error) {
	d, err := s.owned(ctx, a.AddressID)
	if err != nil {
		return nil, err
	}
	if !d.IsActive {
		return nil, apperr.New(apperr.FailedPrecondition, "address %s is inactive and cannot be the default", d.ID)
	}
	return nil, s.env.DB.Tx(ctx, func(ctx context.Context) error {
		n, err := s.env.DB.Collection(coll).CountDocuments(ctx, bson.M{"_id": d.ID, "isActive": true})
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.New(apperr.FailedPrecondition, "address %s was deleted or deactivated meanwhile", d.ID)
		}
		return s.makeDefault(ctx, d.CustomerID, d.ID)
	})
}

type listArgs struct {
	CustomerID *string `json:"customerId" op:"id=customers"`
}

func (s *svc) list(ctx context.Context, a *listArgs) ([]Address, error) {
	customer := customerOf(ctx)
	if a.CustomerID != nil && *a.CustomerID != customer {
		return nil, apperr.New(apperr.PermissionDenied, "customerId is not the caller's customer profile")
	}
	if customer == "" {
		return []Address{}, nil
	}
	cur, err := s.env.DB.Collection(coll).Find(ctx, bson.M{"customerId": customer, "isActive": true},
		options.Find().SetSort(bson.D{{Key: "isDefault", Value: -1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}))
	if err != nil {
		return nil, err
	}
	var docs []addressDoc
	if err := cur.All(ctx, &docs); err != nil {
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
	v, err := s.views(ctx, []addressDoc{*d}, true)
	if err != nil {
		return nil, err
	}
	return &v[0], nil
}

// views renders addresses with their city and area from the places projection
// (one local read), which the catalog's events keep current.
func (s *svc) views(ctx context.Context, docs []addressDoc, withCustomer bool) ([]Address, error) {
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
