// Package catalog is the catalog context's contract: its events (topic
// "catalog") and the operations other services call, with a typed client.
package catalog

import (
	"context"
	"errors"
	"time"

	"marketplace/libs/cache"
	"marketplace/libs/ops"
)

// Service is the catalog's module name (discovery, calls).
const Service = "catalog"

// Topic carries the catalog's events, keyed by the record's id.
const Topic = "catalog"

// Event types on Topic.
const (
	EventStoreCreated = "store.created" // data: StoreCreated
	EventStoreUpdated = "store.updated" // data: StoreUpdated
	EventCityCreated  = "city.created"  // data: Place
	EventCityUpdated  = "city.updated"  // data: Place
	EventAreaCreated  = "area.created"  // data: Place
	EventAreaUpdated  = "area.updated"  // data: Place
)

// Store tiers; the commission rules key on them.
const (
	TierBasic      = "basic"
	TierPremium    = "premium"
	TierEnterprise = "enterprise"
)

// StoreEvent is the data of store.created and store.updated: the store as it
// is after the change. Version orders the changes of one store (1 at
// creation, +1 per change), so a consumer that keeps a copy applies an event
// only when it is newer than what it holds; events written before versions
// existed carry none (0) and are store.created, i.e. version 1.
// The location fields and isOpen were added later: absent in older events.
type StoreEvent struct {
	StoreID           string   `json:"storeId"`
	Name              string   `json:"name"`
	OwnerUserID       string   `json:"ownerUserId"`
	OwnerName         string   `json:"ownerName"`
	OwnerPhone        string   `json:"ownerPhone"`
	PrimaryCategoryID *string  `json:"primaryCategoryId"`
	Tier              string   `json:"tier"`
	City              *string  `json:"city,omitempty"`
	Area              *string  `json:"area,omitempty"`
	Latitude          *float64 `json:"latitude,omitempty"`
	Longitude         *float64 `json:"longitude,omitempty"`
	IsOpen            *bool    `json:"isOpen,omitempty"`
	Version           int64    `json:"version,omitempty"`
}

// StoreCreated is the data of store.created: the payouts service opens the
// store's wallet from it.
type StoreCreated = StoreEvent

// StoreUpdated is the data of store.updated: the payouts service keeps the
// wallet's store name and owner contact from it.
type StoreUpdated = StoreEvent

// EventVersion is the version an event stands for (0 in events older than
// versions, which were all store.created).
func (e *StoreEvent) EventVersion() int64 { return max(e.Version, 1) }

// Place is the data of the city and area events, and an entry of
// catalog.locations.resolve: what other services show of a city or an area.
// Version orders the changes of one place.
type Place struct {
	ID         string `json:"_id"`
	Kind       string `json:"kind"` // "city" or "area"
	Name       string `json:"name"`
	NameArabic string `json:"nameArabic,omitempty"` // cities
	City       string `json:"city,omitempty"`       // areas
	Version    int64  `json:"version"`
}

// Store is stores.catalog.getStore's answer (and an item of listStores).
// OwnerName and OwnerPhone are shown to the store's owner and administrators
// only. City and Area are ids (null when not set), Latitude and Longitude
// decimal degrees (null when not set); IsOpen says whether the store takes
// orders now.
type Store struct {
	ID                string   `json:"_id"`
	Name              string   `json:"name"`
	OwnerUserID       string   `json:"ownerUserId"`
	OwnerName         string   `json:"ownerName,omitempty"`
	OwnerPhone        string   `json:"ownerPhone,omitempty"`
	PrimaryCategoryID *string  `json:"primaryCategoryId"`
	Tier              string   `json:"tier"`
	IsActive          bool     `json:"isActive"`
	IsOpen            bool     `json:"isOpen"`
	City              *string  `json:"city"`
	Area              *string  `json:"area"`
	Latitude          *float64 `json:"latitude"`
	Longitude         *float64 `json:"longitude"`
	CreationTime      int64    `json:"_creationTime"`
}

// Product is a product as clients and other services see it (AED numbers).
type Product struct {
	ID           string  `json:"_id"`
	StoreID      string  `json:"storeId"`
	Name         string  `json:"name"`
	Price        float64 `json:"price"`
	IsAvailable  bool    `json:"isAvailable"`
	CreationTime int64   `json:"_creationTime"`
}

// Locations is catalog.locations.resolve's answer: the places found by id.
type Locations struct {
	Cities map[string]Place `json:"cities"`
	Areas  map[string]Place `json:"areas"`
}

// Operations other services call.
const (
	OpGetStore         = "stores.catalog.getStore"
	OpGetProducts      = "catalog.products.getProducts"
	OpResolveLocations = "catalog.locations.resolve"
	OpEnsureCategories = "catalog.categories.ensureByName"
)

// StoreCacheTTL is how long a store looked up through Store is reused for
// what it shows (name, tier, location). Access checks never use it: a store's
// owner is read afresh (StoreNow), so a handover takes effect at once.
const StoreCacheTTL = 10 * time.Second

// Client calls the catalog.
type Client struct {
	calls  *ops.Client
	stores *cache.TTL[string, Store]
}

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client {
	return &Client{calls: calls, stores: cache.New[string, Store](StoreCacheTTL, 10_000)}
}

// Store is a store by id, nil when it does not exist (a miss is not cached:
// the store may be created any moment). The owner's contact is not kept.
func (c *Client) Store(ctx context.Context, id string) (*Store, error) {
	return c.stores.Lookup(id, func() (*Store, error) { return c.readStore(ctx, id) })
}

// StoreNow is the store as the catalog has it now, never from the cache (which
// it refreshes): for decisions that rest on the store's owner.
func (c *Client) StoreNow(ctx context.Context, id string) (*Store, error) {
	st, err := c.readStore(ctx, id)
	switch {
	case err != nil:
	case st == nil:
		c.stores.Forget(id)
	default:
		c.stores.Put(id, *st)
	}
	return st, err
}

// Forget drops a store from the cache: a service that hears the catalog's
// store events calls it on each, so what it shows follows the catalog.
func (c *Client) Forget(id string) { c.stores.Forget(id) }

func (c *Client) readStore(ctx context.Context, id string) (*Store, error) {
	var st *Store
	if err := c.calls.Query(ctx, Service, OpGetStore, map[string]string{"storeId": id}, &st); err != nil || st == nil {
		return nil, err
	}
	st.OwnerName, st.OwnerPhone = "", ""
	return st, nil
}

// Products are products by id; missing ids are absent.
func (c *Client) Products(ctx context.Context, ids []string) (map[string]Product, error) {
	var out map[string]Product
	err := c.calls.Query(ctx, Service, OpGetProducts, map[string]any{"productIds": ids}, &out)
	return out, err
}

// ResolvePlaces reads cities and areas by id in one call.
func (c *Client) ResolvePlaces(ctx context.Context, cities, areas []string) (*Locations, error) {
	var l Locations
	if err := c.calls.Query(ctx, Service, OpResolveLocations, map[string]any{"cities": cities, "areas": areas}, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// EnsureCategories finds or creates categories by name: name -> id.
func (c *Client) EnsureCategories(ctx context.Context, names []string) (map[string]string, error) {
	var ids map[string]string
	err := c.calls.Mutation(ctx, Service, OpEnsureCategories, map[string]any{"names": names}, &ids)
	return ids, err
}

// StoreRef resolves a store for the access levels of ops (Resolvers.Store):
// the one piece of code through which every service that serves stores'
// owners (payouts, customers, reviews) learns who owns a store. It asks the
// catalog, the owner of that fact, on every call (never a cache, never the
// caller's own copy from the store events, which may not have arrived: a new
// store's owner is served at once, and after admins.catalog.updateStore hands
// a store to another user the former owner is refused at the next call),
// through the internal OpGetStoreContacts, whose answer carries the
// catalog's version of the store (ops.StoreRef.Version). A store the catalog
// does not have is nil: the access check answers it as a store that does not
// exist. A catalog of an older release that does not count the caller among
// that operation's callers is asked through the public getStore instead
// (fresh as well, without a version).
func (c *Client) StoreRef(ctx context.Context, id string) (*ops.StoreRef, error) {
	stores, err := c.StoreContacts(ctx, []string{id})
	if errors.Is(err, ops.ErrOperationRefused) {
		st, err := c.StoreNow(ctx, id)
		if err != nil || st == nil {
			return nil, err
		}
		return &ops.StoreRef{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID}, nil
	}
	if err != nil {
		return nil, err
	}
	st, ok := stores[id]
	if !ok {
		c.stores.Forget(id)
		return nil, nil
	}
	if cached, ok := c.stores.Get(id); ok && (cached.OwnerUserID != st.OwnerUserID || cached.Name != st.Name) {
		c.stores.Forget(id) // what the service shows of the store follows too
	}
	return &ops.StoreRef{ID: id, Name: st.Name, OwnerUserID: st.OwnerUserID, Version: st.Version}, nil
}

// Category is a store category.
type Category struct {
	ID           string `json:"_id"`
	Name         string `json:"name"`
	NameArabic   string `json:"nameArabic"`
	CreationTime int64  `json:"_creationTime"`
}

// OpGetCategories reads categories by id (internal).
const OpGetCategories = "catalog.categories.getCategories"

// Categories are categories by id; missing ids are absent.
func (c *Client) Categories(ctx context.Context, ids []string) (map[string]Category, error) {
	var out map[string]Category
	err := c.calls.Query(ctx, Service, OpGetCategories, map[string]any{"categoryIds": ids}, &out)
	return out, err
}
