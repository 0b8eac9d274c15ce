package domain

import (
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// MaxProductsPerStore is how many products one store keeps (available or
// not; products are not deleted: an owner renames and reprices one instead).
// It bounds the store's listing: listProducts's one array, and the pages.
const MaxProductsPerStore = 1000

// NewProduct is a product of the store, available unless said otherwise, as
// the store's count-th product (count: how many it keeps already): refused
// past MaxProductsPerStore (FAILED_PRECONDITION, reason too_many_products).
func NewProduct(id, storeID, name string, price money.Fils, isAvailable *bool, count int64, now int64) (Product, error) {
	if count >= MaxProductsPerStore {
		return Product{}, apperr.New(apperr.FailedPrecondition, "a store keeps at most %d products: change one of them (stores.products.updateProduct) instead", MaxProductsPerStore).
			WithDetails(map[string]any{"reason": "too_many_products"})
	}
	p := Product{ID: id, StoreID: storeID, Name: strings.TrimSpace(name), Price: price, IsAvailable: true, CreationTime: now}
	if isAvailable != nil {
		p.IsAvailable = *isAvailable
	}
	return p, nil
}

// ProductChange is an update of a product: the fields given.
type ProductChange struct {
	Name        *string
	Price       *money.Fils
	IsAvailable *bool
}

// Check refuses a change that gives nothing.
func (c ProductChange) Check() error {
	if c.Name == nil && c.Price == nil && c.IsAvailable == nil {
		return apperr.New(apperr.InvalidArgument, "nothing to change: give name, price or isAvailable")
	}
	return nil
}

// Apply changes the fields c gives. Orders and cart lines copied the price
// when they were made: a new price reaches none of them.
func (p *Product) Apply(c ProductChange) error {
	if err := c.Check(); err != nil {
		return err
	}
	if c.Name != nil {
		p.Name = strings.TrimSpace(*c.Name)
	}
	if c.Price != nil {
		p.Price = *c.Price
	}
	if c.IsAvailable != nil {
		p.IsAvailable = *c.IsAvailable
	}
	return nil
}
