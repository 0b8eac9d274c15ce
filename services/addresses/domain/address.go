// Package domain holds the addresses service's rules: a customer's address
// book (at most MaxAddresses, at most one default, the default handed over
// when it leaves), an address seen only by its own customer, coordinates
// as decimal text, and the projection of the catalog's places. It knows
// nothing of storage, contexts or HTTP; time is a parameter (millis).
package domain

import (
	"errors"
	"strings"

	"marketplace/libs/apperr"
)

// Address is a customer's delivery address as stored (customerAddresses).
type Address struct {
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

// Draft is a new address as the customer gives it.
type Draft struct {
	Name, FullAddress, City, Area                string
	FlatVilaNumber, BuildingNameNumber, Landmark *string
	Latitude, Longitude                          *string
}

// Change is an update of an address: the fields given (nil: unchanged).
type Change struct {
	Name, FullAddress, City, Area                *string
	FlatVilaNumber, BuildingNameNumber, Landmark *string
	Latitude, Longitude                          *string
	IsDefault, IsActive                          *bool
}

// ErrStale says that an address changed, since the caller checked a change
// against it, in a field the checks relied on (city, area, active): the
// change starts over on the new state.
var ErrStale = errors.New("addresses: the address changed since it was checked")

// CheckCustomer refuses a customerId argument that is not the caller's own
// customer profile: users manage only their own addresses.
func CheckCustomer(given, caller string) error {
	if given != caller {
		return apperr.New(apperr.PermissionDenied, "customerId is not the caller's customer profile")
	}
	return nil
}

// OwnedBy refuses an address of another customer.
func (a *Address) OwnedBy(customer string) error {
	if a.CustomerID != customer {
		return apperr.New(apperr.PermissionDenied, "the address belongs to another customer")
	}
	return nil
}

// CheckCanBeDefault refuses an inactive address as the default.
func (a *Address) CheckCanBeDefault() error {
	if !a.IsActive {
		return apperr.New(apperr.FailedPrecondition, "address %s is inactive and cannot be the default", a.ID)
	}
	return nil
}

// NotFound is the answer about an address that does not exist.
func NotFound(id string) error {
	return apperr.New(apperr.NotFound, "address %s does not exist", id)
}

func trimmed(p *string) *string {
	if p == nil {
		return nil
	}
	v := strings.TrimSpace(*p)
	return &v
}

// NewAddress is the address d describes, active and not yet the default
// (Book.Add decides that), its texts trimmed; the coordinates must pass
// CheckCoordinates.
func NewAddress(id, customer string, d Draft, now int64) (Address, error) {
	if err := CheckCoordinates(d.Latitude, d.Longitude); err != nil {
		return Address{}, err
	}
	return Address{
		ID: id, CustomerID: customer, Name: strings.TrimSpace(d.Name), FullAddress: strings.TrimSpace(d.FullAddress),
		City: d.City, Area: d.Area, FlatVilaNumber: trimmed(d.FlatVilaNumber), BuildingNameNumber: trimmed(d.BuildingNameNumber),
		Landmark: trimmed(d.Landmark), Latitude: trimmed(d.Latitude), Longitude: trimmed(d.Longitude),
		IsActive: true, CreationTime: now, UpdatedAt: now,
	}, nil
}

// Check says whether c may be applied to a: its coordinates are decimal
// degrees, and an address inactive after the change cannot be the default.
func (a *Address) Check(c Change) error {
	if err := CheckCoordinates(c.Latitude, c.Longitude); err != nil {
		return err
	}
	active := a.IsActive
	if c.IsActive != nil {
		active = *c.IsActive
	}
	if c.IsDefault != nil && *c.IsDefault && !active {
		return apperr.Invalid("isDefault", "an inactive address cannot be the default")
	}
	return nil
}

// Place is the city and area a after c, and whether c changes either (they
// are then checked against the catalog).
func (a *Address) Place(c Change) (city, area string, changed bool) {
	city, area = a.City, a.Area
	if c.City != nil {
		city = *c.City
	}
	if c.Area != nil {
		area = *c.Area
	}
	return city, area, c.City != nil || c.Area != nil
}

// apply changes the fields c gives (texts trimmed) and the activity; the
// default is the book's to move.
func (a *Address) apply(c Change, now int64) {
	for _, f := range []struct {
		dst **string
		v   *string
	}{{&a.FlatVilaNumber, c.FlatVilaNumber}, {&a.BuildingNameNumber, c.BuildingNameNumber}, {&a.Landmark, c.Landmark},
		{&a.Latitude, c.Latitude}, {&a.Longitude, c.Longitude}} {
		if f.v != nil {
			*f.dst = trimmed(f.v)
		}
	}
	for _, f := range []struct {
		dst *string
		v   *string
	}{{&a.Name, c.Name}, {&a.FullAddress, c.FullAddress}, {&a.City, c.City}, {&a.Area, c.Area}} {
		if f.v != nil {
			*f.dst = strings.TrimSpace(*f.v)
		}
	}
	if c.IsActive != nil {
		a.IsActive = *c.IsActive
	}
	a.UpdatedAt = now
}
