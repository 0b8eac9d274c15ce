package customers

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
)

type heldOrdersArgs struct {
	StoreID        *string   `json:"storeId" op:"id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// heldFilter selects the orders whose payment is held for review and not yet
// settled. A held order is made pending with its payment under review; an
// administrator settles it by confirming it (the payment becomes paid) or
// cancelling it (the payment stays under review, for the refund), and the
// status machine allows nothing else from pending. So pending and under
// review is exactly "still to settle".
func heldFilter() bson.M {
	return bson.M{"paymentStatus": PaymentUnderReview, "status": StatusPending}
}

// listHeldOrders pages the orders still held for review, newest first,
// optionally of one store, for administrators (the registry checked), with
// the store's terms as listStoreOrders shows them. A store that does not
// exist is NOT_FOUND, as every filter naming a missing record.
func (s *svc) listHeldOrders(ctx context.Context, a *heldOrdersArgs) (page.Result[OrderView], error) {
	filter := heldFilter()
	if a.StoreID != nil {
		st, err := s.catalog.Store(ctx, *a.StoreID)
		if err != nil {
			return page.Result[OrderView]{}, err
		}
		if st == nil {
			return page.Result[OrderView]{}, apperr.New(apperr.NotFound, "store %s does not exist", *a.StoreID)
		}
		filter["storeId"] = *a.StoreID
	}
	r, err := page.Find(ctx, s.env.DB.Collection("orders"), filter, page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts,
		func(o *orderDoc) (any, string) { return o.CreationTime, o.ID })
	if err != nil {
		return page.Result[OrderView]{}, err
	}
	return page.Map(r, func(o *orderDoc) OrderView { return o.view(true) }), nil
}
