package payouts

// Every payout the administrators see names its store, the store's owner
// and the owner's phone, whatever order the services hear of the store in.
// The wallet keeps a copy of them from the catalog's store.created and
// store.updated events, which may not have arrived yet when a payout is
// listed (a wallet opened by an adjustment reads the store without its
// owner's contact), and lags a change while they travel. So the listings
// read them through the catalog at request time, for all their stores in
// one uncached call (catalog.stores.getStoreContacts); only when the catalog
// cannot answer do they show the wallet's copy, and a listing that would
// then show an item without them is UNAVAILABLE rather than incomplete.

import (
	"context"
	"time"

	"marketplace/libs/apperr"
	"marketplace/services/payouts/domain"
)

// contactsTimeout bounds the read of the stores' contacts.
const contactsTimeout = 3 * time.Second

// nameStores fills in the store name (when the payout recorded none), the
// owner's name and the owner's phone of items from the catalog. When the
// catalog cannot answer, the wallets' copies stay; strict makes that an
// UNAVAILABLE error if an item then lacks any of them (listings), otherwise
// it is only logged (the answer of a move already committed).
func (s *svc) nameStores(ctx context.Context, items []*PayoutItem, strict bool) error {
	var storeIDs []string
	seen := map[string]bool{}
	for _, it := range items {
		if !seen[it.StoreID] {
			seen[it.StoreID] = true
			storeIDs = append(storeIDs, it.StoreID)
		}
	}
	if len(storeIDs) == 0 {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
	defer cancel()
	contacts, err := s.contacts(cctx, storeIDs)
	if err != nil {
		incomplete := 0
		for _, it := range items {
			if it.StoreName == "" || it.StoreOwnerName == "" || it.StoreOwnerPhone == "" {
				incomplete++
			}
		}
		s.env.Logger.WarnContext(ctx, "payouts: the catalog did not give the stores' contacts; showing the wallets' copies",
			"stores", len(storeIDs), "incomplete", incomplete, "err", err)
		if strict && incomplete > 0 {
			return apperr.Wrap(err, apperr.Unavailable, "the catalog cannot name the payouts' store owners now; try again")
		}
		return nil
	}
	for _, it := range items {
		c, ok := contacts[it.StoreID]
		if !ok {
			continue // not in the catalog: the wallet's copy is all there is
		}
		if it.StoreName == "" {
			it.StoreName = c.Name
		}
		if c.OwnerName != "" {
			it.StoreOwnerName = c.OwnerName
		}
		if c.OwnerPhone != "" {
			it.StoreOwnerPhone = c.OwnerPhone
		}
		// The owner shown is the store's now: an open payout its former
		// owner requested says so, whether or not the handover has reached
		// this service yet.
		if domain.Open(it.Status) && it.ownerAtRequest != "" && c.OwnerUserID != it.ownerAtRequest {
			it.HandedOver = true
		}
	}
	return nil
}

// nameStoresOf is nameStores over payouts with everything recorded on them.
func (s *svc) nameStoresOf(ctx context.Context, ps []Payout, strict bool) error {
	items := make([]*PayoutItem, len(ps))
	for i := range ps {
		items[i] = &ps[i].PayoutItem
	}
	return s.nameStores(ctx, items, strict)
}

// ownerNameOf is the store's owner's name as the catalog has it now, for a
// request whose wallet has not heard of its owner yet (opened by an
// adjustment before the store's events arrived); "" when the catalog cannot
// say within contactsTimeout: a name is not worth refusing a request for.
func (s *svc) ownerNameOf(ctx context.Context, storeID string) string {
	cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
	defer cancel()
	c, err := s.contacts(cctx, []string{storeID})
	if err != nil {
		s.env.Logger.WarnContext(ctx, "payouts: the catalog did not name the store's owner; the request records the id alone", "storeId", storeID, "err", err)
		return ""
	}
	return c[storeID].OwnerName
}
