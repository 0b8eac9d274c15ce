package catalog

import (
	contract "marketplace/libs/contracts/catalog"
	"marketplace/services/catalog/domain"
)

// The catalog's records are domain types (domain/): the stored shape and
// the rules. What crosses the border is declared in the contract
// (libs/contracts/catalog), shared with the services that consume or call
// it; the conversions are here.
type (
	City     = domain.City
	Area     = domain.Area
	Category = domain.Category
	Store    = domain.Store
	Product  = domain.Product

	StoreCreated = contract.StoreCreated
	Place        = contract.Place
	ProductView  = contract.Product
	Locations    = contract.Locations
)

// Store tiers; the commission rules key on them too.
const (
	TierBasic      = contract.TierBasic
	TierPremium    = contract.TierPremium
	TierEnterprise = contract.TierEnterprise
)

// MaxProductsPerStore is how many products one store keeps (domain's).
const MaxProductsPerStore = domain.MaxProductsPerStore

// Topic carries the catalog's events.
const Topic = contract.Topic

func productView(p *Product) ProductView {
	return ProductView{ID: p.ID, StoreID: p.StoreID, Name: p.Name, Price: p.Price.AED(), IsAvailable: p.IsAvailable, CreationTime: p.CreationTime}
}

func cityPlace(c *City) Place {
	return Place{ID: c.ID, Kind: "city", Name: c.Name, NameArabic: c.NameArabic, Version: c.Version}
}

func areaPlace(a *Area) Place {
	return Place{ID: a.ID, Kind: "area", Name: a.Name, City: a.City, Version: a.Version}
}

// storeView is the store as getStore shows it.
func storeView(st *Store) *contract.Store {
	return &contract.Store{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName, OwnerPhone: st.OwnerPhone,
		PrimaryCategoryID: st.PrimaryCategoryID, Tier: st.Tier, IsActive: st.IsActive, IsOpen: st.Open(),
		City: st.City, Area: st.Area, Latitude: st.Latitude, Longitude: st.Longitude, CreationTime: st.CreationTime}
}

// storeEvent is the store's store.created or store.updated data.
func storeEvent(st *Store) contract.StoreEvent {
	open := st.Open()
	return contract.StoreEvent{
		StoreID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName, OwnerPhone: st.OwnerPhone,
		PrimaryCategoryID: st.PrimaryCategoryID, Tier: st.Tier, City: st.City, Area: st.Area,
		Latitude: st.Latitude, Longitude: st.Longitude, IsOpen: &open, Version: st.StoreVersion(),
	}
}

// NearbyStore is an answer item of catalog.stores.searchNearby: the store and
// how far it is from the searched point, in km (to the metre).
type NearbyStore struct {
	contract.Store
	DistanceKm float64 `json:"distanceKm"`
}
