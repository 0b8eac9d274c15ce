package catalog

import (
	"context"

	contract "marketplace/libs/contracts/catalog"
)

// getStoreContacts is for the services that show a store's owner to the
// administrators (the payouts service): stores by id with their owner's
// name and phone, as committed; ids that name no store are absent.
func (s *svc) getStoreContacts(ctx context.Context, a *contract.StoreContactsArgs) (*contract.StoreContactsResult, error) {
	sts, err := s.stores.Contacts(ctx, a.StoreIDs)
	if err != nil {
		return nil, err
	}
	out := &contract.StoreContactsResult{Stores: make(map[string]contract.StoreContact, len(sts))}
	for _, st := range sts {
		out.Stores[st.ID] = contract.StoreContact{StoreID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName,
			OwnerPhone: st.OwnerPhone, Version: st.StoreVersion()}
	}
	return out, nil
}
