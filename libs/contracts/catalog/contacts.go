package catalog

import (
	"context"

	"marketplace/libs/ops"
)

// OpGetStoreContacts (internal query) is stores by id with their owner's
// contact, as the catalog has them now (never cached): for a service that
// shows a store's owner to the platform's administrators (the payouts
// service's payout listings) and must not show an empty or lagging copy
// while the store's events are on their way, and for the access checks of
// the services that serve stores' owners (Client.StoreRef: payouts,
// customers, reviews). StoreContactsArgs in, StoreContactsResult out.
const OpGetStoreContacts = "catalog.stores.getStoreContacts"

// MaxStoreContacts is the most store ids one OpGetStoreContacts call takes;
// Client.StoreContacts splits longer lists.
const MaxStoreContacts = 200

// StoreContactsArgs are the arguments of OpGetStoreContacts.
type StoreContactsArgs struct {
	StoreIDs []string `json:"storeIds" op:"required,id=stores,max=200"`
}

// StoreContact is a store's name and owner, with the catalog's version of the
// store they are from (as store events carry it).
type StoreContact struct {
	StoreID     string `json:"storeId"`
	Name        string `json:"name"`
	OwnerUserID string `json:"ownerUserId"`
	OwnerName   string `json:"ownerName"`
	OwnerPhone  string `json:"ownerPhone"`
	Version     int64  `json:"version"`
}

// StoreContactsResult is OpGetStoreContacts's answer: each existing store
// asked for, by id; ids that name no store are absent.
type StoreContactsResult struct {
	Stores map[string]StoreContact `json:"stores"`
}

// StoreContacts asks the catalog for the stores' names and owners' contacts
// now (not cached; any number of ids, split into calls of MaxStoreContacts).
// Stores that do not exist are absent.
func (c *Client) StoreContacts(ctx context.Context, storeIDs []string) (map[string]StoreContact, error) {
	return ops.InChunks(storeIDs, MaxStoreContacts, func(ids []string) (map[string]StoreContact, error) {
		var r StoreContactsResult
		err := c.calls.Query(ctx, Service, OpGetStoreContacts, StoreContactsArgs{StoreIDs: ids}, &r)
		return r.Stores, err
	})
}
