package catalog

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	contract "marketplace/libs/contracts/catalog"
)

// getStoreContacts is for the services that show a store's owner to the
// administrators (the payouts service): stores by id with their owner's
// name and phone, as committed; ids that name no store are absent.
func (s *svc) getStoreContacts(ctx context.Context, a *contract.StoreContactsArgs) (*contract.StoreContactsResult, error) {
	cur, err := s.env.DB.Collection("stores").Find(ctx, bson.M{"_id": bson.M{"$in": a.StoreIDs}}, options.Find().SetProjection(bson.M{
		"name": 1, "ownerUserId": 1, "ownerName": 1, "ownerPhone": 1, "version": 1,
	}))
	if err != nil {
		return nil, err
	}
	var sts []Store
	if err := cur.All(ctx, &sts); err != nil {
		return nil, err
	}
	out := &contract.StoreContactsResult{Stores: make(map[string]contract.StoreContact, len(sts))}
	for _, st := range sts {
		out.Stores[st.ID] = contract.StoreContact{StoreID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName,
			OwnerPhone: st.OwnerPhone, Version: st.version()}
	}
	return out, nil
}
