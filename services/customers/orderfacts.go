package customers

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	contract "marketplace/libs/contracts/customers"
)

// getOrderFacts is for the services that move money on orders (the payouts
// service): each existing order's store, status, figures and delivery time,
// from the orders as committed. Ids that name no order are absent: the
// caller tells "unknown" from "not delivered" by it.
func (s *svc) getOrderFacts(ctx context.Context, a *contract.OrderFactsArgs) (*contract.OrderFactsResult, error) {
	cur, err := s.env.DB.Collection("orders").Find(ctx, bson.M{"_id": bson.M{"$in": a.OrderIDs}}, options.Find().SetProjection(bson.M{
		"storeId": 1, "storeName": 1, "storeOwnerUserId": 1, "status": 1, "total": 1, "platformCommission": 1, "storeEarnings": 1, "statusHistory": 1,
	}))
	if err != nil {
		return nil, err
	}
	var os []orderDoc
	if err := cur.All(ctx, &os); err != nil {
		return nil, err
	}
	out := &contract.OrderFactsResult{Orders: make(map[string]contract.OrderFacts, len(os))}
	for _, o := range os {
		f := contract.OrderFacts{OrderID: o.ID, StoreID: o.StoreID, StoreName: o.StoreName, StoreOwnerUserID: o.StoreOwnerUserID, Status: o.Status,
			Total: o.Total, PlatformCommission: o.PlatformCommission, StoreEarnings: o.StoreEarnings}
		for _, h := range o.StatusHistory {
			if h.Status == StatusDelivered {
				at := h.At
				f.DeliveredAt = &at
			}
		}
		out.Orders[o.ID] = f
	}
	return out, nil
}
