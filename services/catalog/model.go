package catalog

import "marketplace/libs/money"

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
	TierBasic      = "basic"
	TierPremium    = "premium"
	TierEnterprise = "enterprise"
)

// Store is a merchant on the marketplace.
type Store struct {
	ID                string  `bson:"_id" json:"_id"`
	Name              string  `bson:"name" json:"name"`
	OwnerUserID       string  `bson:"ownerUserId" json:"ownerUserId"`
	OwnerName         string  `bson:"ownerName" json:"ownerName,omitempty"`
	OwnerPhone        string  `bson:"ownerPhone" json:"ownerPhone,omitempty"`
	PrimaryCategoryID *string `bson:"primaryCategoryId" json:"primaryCategoryId"`
	Tier              string  `bson:"tier" json:"tier"`
	IsActive          bool    `bson:"isActive" json:"isActive"`
	CreationTime      int64   `bson:"creationTime" json:"_creationTime"`
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

// ProductView is a product as clients see it.
type ProductView struct {
	ID           string  `json:"_id"`
	StoreID      string  `json:"storeId"`
	Name         string  `json:"name"`
	Price        float64 `json:"price"`
	IsAvailable  bool    `json:"isAvailable"`
	CreationTime int64   `json:"_creationTime"`
}

func (p *Product) view() ProductView {
	return ProductView{ID: p.ID, StoreID: p.StoreID, Name: p.Name, Price: p.Price.AED(), IsAvailable: p.IsAvailable, CreationTime: p.CreationTime}
}

// StoreCreated is the data of the store.created event (topic "catalog"): the
// payouts service opens the store's wallet from it.
type StoreCreated struct {
	StoreID           string  `json:"storeId"`
	Name              string  `json:"name"`
	OwnerUserID       string  `json:"ownerUserId"`
	OwnerName         string  `json:"ownerName"`
	OwnerPhone        string  `json:"ownerPhone"`
	PrimaryCategoryID *string `json:"primaryCategoryId"`
	Tier              string  `json:"tier"`
}

// Place is the data of the city.created, city.updated, area.created and
// area.updated events, and an entry of catalog.locations.resolve: what other
// services show of a city or an area. Version orders the changes of one place.
type Place struct {
	ID         string `json:"_id"`
	Kind       string `json:"kind"` // "city" or "area"
	Name       string `json:"name"`
	NameArabic string `json:"nameArabic,omitempty"` // cities
	City       string `json:"city,omitempty"`       // areas
	Version    int64  `json:"version"`
}

func (c *City) place() Place {
	return Place{ID: c.ID, Kind: "city", Name: c.Name, NameArabic: c.NameArabic, Version: c.Version}
}

func (a *Area) place() Place {
	return Place{ID: a.ID, Kind: "area", Name: a.Name, City: a.City, Version: a.Version}
}

// Topic carries the catalog's events.
const Topic = "catalog"
