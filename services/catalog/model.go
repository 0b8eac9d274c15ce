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
// Stores created before locations existed have no city, area, coordinates,
// isOpen (read as open), nameKey or version (read as 1).
type Store struct {
	ID                string   `bson:"_id"`
	Name              string   `bson:"name"`
	NameKey           string   `bson:"nameKey,omitempty"`
	OwnerUserID       string   `bson:"ownerUserId"`
	OwnerName         string   `bson:"ownerName"`
	OwnerPhone        string   `bson:"ownerPhone"`
	PrimaryCategoryID *string  `bson:"primaryCategoryId"`
	Tier              string   `bson:"tier"`
	IsActive          bool     `bson:"isActive"`
	IsOpen            *bool    `bson:"isOpen,omitempty"`
	City              *string  `bson:"city,omitempty"`
	Area              *string  `bson:"area,omitempty"`
	Latitude          *float64 `bson:"latitude,omitempty"`
	Longitude         *float64 `bson:"longitude,omitempty"`
	CreationTime      int64    `bson:"creationTime"`
	UpdatedAt         int64    `bson:"updatedAt,omitempty"`
	Version           int64    `bson:"version,omitempty"`
}

// open reports whether the store takes orders (stores from before the flag: yes).
func (st *Store) open() bool { return st.IsOpen == nil || *st.IsOpen }

// version is the store's version (stores from before versions: 1).
func (st *Store) version() int64 { return max(st.Version, 1) }

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
		PrimaryCategoryID: st.PrimaryCategoryID, Tier: st.Tier, IsActive: st.IsActive, IsOpen: st.open(),
		City: st.City, Area: st.Area, Latitude: st.Latitude, Longitude: st.Longitude, CreationTime: st.CreationTime}
}

// event is the store's store.created or store.updated data.
func (st *Store) event() contract.StoreEvent {
	open := st.open()
	return contract.StoreEvent{
		StoreID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName, OwnerPhone: st.OwnerPhone,
		PrimaryCategoryID: st.PrimaryCategoryID, Tier: st.Tier, City: st.City, Area: st.Area,
		Latitude: st.Latitude, Longitude: st.Longitude, IsOpen: &open, Version: st.version(),
	}
}

// NearbyStore is an answer item of catalog.stores.searchNearby: the store and
// how far it is from the searched point, in km (to the metre).
type NearbyStore struct {
	contract.Store
	DistanceKm float64 `json:"distanceKm"`
}
