package customers

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/ops"
	"marketplace/libs/page"
)

type storeOrdersArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	Status         *string   `json:"status" op:"enum=pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listStoreOrders pages a store's orders, newest first, optionally of one
// status, for its owner or an administrator (the registry checked). The
// commission and the store's earnings are shown: they are the terms between
// the platform and this store. An order whose payment is held for review is
// the platform's to settle: the store sees it only once an administrator
// confirmed it (administrators see every order).
func (s *svc) listStoreOrders(ctx context.Context, a *storeOrdersArgs) (page.Result[OrderView], error) {
	filter := bson.M{"storeId": ops.StoreOf(ctx).ID}
	if a.Status != nil {
		filter["status"] = *a.Status
	}
	if !ops.Caller(ctx).IsAdmin() {
		filter["paymentStatus"] = bson.M{"$ne": PaymentUnderReview}
	}
	r, err := page.Find(ctx, s.env.DB.Collection("orders"), filter, page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts,
		func(o *orderDoc) (any, string) { return o.CreationTime, o.ID })
	if err != nil {
		return page.Result[OrderView]{}, err
	}
	return page.Map(r, func(o *orderDoc) OrderView { return o.view(true) }), nil
}
