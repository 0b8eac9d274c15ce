package catalog

import (
	contract "marketplace/libs/contracts/catalog"
	"marketplace/libs/money"
)

// City is a reference city (Dubai, Abu Dhabi, ...).
type City struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	NameArabic   string `bson:"nameArabic" json:"nameArabic"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
	Version      int64  `bson:"version" json:"-"` // 1 at creation, +1 per change
}

// Area is a delivery area inside a city.
type Area struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	City         string `bson:"city" json:"city"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
	Version      int64  `bson:"version" json:"-"` // 1 at creation, +1 per change
}

// Category is a store category; the commission rules key on it.
type Category struct {
	ID           string `bson:"_id" json:"_id"`
	Name         string `bson:"name" json:"name"`
	NameArabic   string `bson:"nameArabic" json:"nameArabic"`
	NameKey      string `bson:"nameKey" json:"-"`
	CreationTime int64  `bson:"creationTime" json:"_creationTime"`
}

// Store tiers; the commission rules key on them too.
const (
	TierBasic      = contract.TierBasic
	TierPremium    = contract.TierPremium
	TierEnterprise = contract.TierEnterprise
)

// Store is a merchant on the marketplace, as stored (clients see view()).
type Store struct {
	ID                string  `bson:"_id"`
	Name              string  `bson:"name"`
	OwnerUserID       string  `bson:"ownerUserId"`
	OwnerName         string  `bson:"ownerName"`
	OwnerPhone        string  `bson:"ownerPhone"`
	PrimaryCategoryID *string `bson:"primaryCategoryId"`
	Tier              string  `bson:"tier"`
	IsActive          bool    `bson:"isActive"`
	CreationTime      int64   `bson:"creationTime"`
}

// Product is something a store sells. Prices are fils inside, AED outside.
type Product struct {
	ID           string     `bson:"_id"`
	StoreID      string     `bson:"storeId"`
	Name         string     `bson:"name"`
	Price        money.Fils `bson:"price"`
	IsAvailable  bool       `bson:"isAvailable"`
	CreationTime int64      `bson:"creationTime"`
}

func (p *Product) view() ProductView {
	return ProductView{ID: p.ID, StoreID: p.StoreID, Name: p.Name, Price: p.Price.AED(), IsAvailable: p.IsAvailable, CreationTime: p.CreationTime}
}

// What crosses the border is declared in the contract (libs/contracts/catalog),
// shared with the services that consume or call it.
type (
	StoreCreated = contract.StoreCreated
	Place        = contract.Place
	ProductView  = contract.Product
	Locations    = contract.Locations
)

func (c *City) place() Place {
	return Place{ID: c.ID, Kind: "city", Name: c.Name, NameArabic: c.NameArabic, Version: c.Version}
}

func (a *Area) place() Place {
	return Place{ID: a.ID, Kind: "area", Name: a.Name, City: a.City, Version: a.Version}
}

// Topic carries the catalog's events.
const Topic = contract.Topic

// view is the store as getStore shows it.
func (st *Store) view() *contract.Store {
	return &contract.Store{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName, OwnerPhone: st.OwnerPhone,
		PrimaryCategoryID: st.PrimaryCategoryID, Tier: st.Tier, IsActive: st.IsActive, CreationTime: st.CreationTime}
}
