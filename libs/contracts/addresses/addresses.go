// Package addresses is the addresses context's contract: the shape of a
// customer's saved address (interface section 2.5) and a typed client for the
// operations other services call.
package addresses

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// Service is the addresses module name.
const Service = "addresses"

// OpGetAddress is customers.addresses.getAddress: one of the caller's
// addresses, null when it does not exist, PERMISSION_DENIED when it is another
// customer's. Other services call it with the caller's token (which every
// call forwards), so the addresses service applies its own ownership rule.
const OpGetAddress = "customers.addresses.getAddress"

// CityRef and AreaRef are how read results show an address's city and area.
type CityRef struct {
	ID         string `json:"_id"`
	Name       string `json:"name"`
	NameArabic string `json:"nameArabic"`
}

type AreaRef struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
	City string `json:"city"`
}

// Address is an address as clients see it (section 2.5). CustomerID is set
// by getAddress only.
type Address struct {
	ID                 string   `json:"_id"`
	CreationTime       int64    `json:"_creationTime"`
	CustomerID         string   `json:"customerId,omitempty"`
	Name               string   `json:"name"`
	FullAddress        string   `json:"fullAddress"`
	City               *CityRef `json:"city"`
	Area               *AreaRef `json:"area"`
	FlatVilaNumber     *string  `json:"flatVilaNumber,omitempty"`
	BuildingNameNumber *string  `json:"buildingNameNumber,omitempty"`
	Landmark           *string  `json:"landmark,omitempty"`
	Latitude           *string  `json:"latitude,omitempty"`
	Longitude          *string  `json:"longitude,omitempty"`
	IsDefault          bool     `json:"isDefault"`
	IsActive           bool     `json:"isActive"`
}

// Client calls the addresses service.
type Client struct{ calls *ops.Client }

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client { return &Client{calls: calls} }

// MyAddress is one of the calling customer's addresses (the caller's token
// travels with the call): NOT_FOUND when there is no such address,
// PERMISSION_DENIED when it is another customer's.
func (c *Client) MyAddress(ctx context.Context, addressID string) (*Address, error) {
	var a *Address
	if err := c.calls.Query(ctx, Service, OpGetAddress, map[string]string{"addressId": addressID}, &a); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, apperr.New(apperr.NotFound, "address %s does not exist", addressID)
	}
	return a, nil
}
