package notifications

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/events"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/notifications/domain"
)

func envelope(typ, data string) events.Envelope {
	return events.Envelope{ID: "evt_" + strings.ReplaceAll(typ, ".", "_"), Type: typ, Source: "test",
		Time: time.Date(2026, 3, 1, 12, 30, 0, 123_000_000, time.UTC), Subject: "s", Data: json.RawMessage(data)}
}

const orderCreatedData = `{"orderId":"ord_1","customerId":"cus_1","customerUserId":"u_cust","storeId":"sto_1",
	"storeName":"Falafel House","storeOwnerUserId":"u_owner","totalFils":5750,"subtotalFils":5000,"deliveryFeeFils":750,
	"paymentIntentId":"pi_1","status":"confirmed"}`

// TestHandlerStoresOncePerRecipient runs the consumer's handler directly, twice
// per event, as a redelivery whose dedupe record is gone would: the second run
// writes nothing.
func TestHandlerStoresOncePerRecipient(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "notifications", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if err := db.EnsureIndexes(ctx, Indexes()...); err != nil {
		t.Fatal(err)
	}
	s := newSvc(service.Env{DB: db})
	envs := []events.Envelope{
		envelope(domain.EventOrderCreated, orderCreatedData),
		envelope(domain.EventReviewFlagRaised, `{"flagId":"flg_1","reviewId":"rev_1","reason":"fake"}`),
		{ID: "evt_self", Type: domain.EventOrderCreated, Data: json.RawMessage(`{"orderId":"ord_2","customerUserId":"u_x","storeOwnerUserId":"u_x","totalFils":100}`)},
		{ID: "evt_flag2", Type: domain.EventReviewFlagRaised, Data: json.RawMessage(`{"flagId":"flg_2","reviewId":"rev_1","reason":"spam"}`)},
		envelope("order.shipped", `{}`),
	}
	for range 2 {
		for _, e := range envs {
			if err := db.Tx(ctx, func(tx context.Context) error { return s.onEvent(tx, e) }); err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
		}
	}
	var docs []domain.Notification
	cur, err := db.Collection("notifications").Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, d := range docs {
		count[d.EventID+"/"+d.RecipientUserID+"/"+d.Type]++
		if d.ID == "" || d.CreationTime == 0 || d.EventTime == 0 || d.Data == nil {
			t.Errorf("stored %+v", d)
		}
	}
	wantKeys := map[string]int{
		"evt_order_created/u_cust/order_created": 1, "evt_order_created/u_owner/new_order": 1,
		"evt_review_flag_raised//review_flagged": 1, "evt_flag2//review_flagged": 1,
		"evt_self/u_x/order_created": 1, "evt_self/u_x/new_order": 1,
	}
	if !maps.Equal(count, wantKeys) {
		t.Fatalf("stored %v, want %v", count, wantKeys)
	}
	// One inbox's notifications, written one after the other (here within a
	// millisecond or two), have strictly increasing creation times in the
	// order written: the inbox lists by creation time, the random id only
	// breaking ties.
	at := map[string]int64{}
	for _, d := range docs {
		at[d.EventID+"/"+d.RecipientUserID] = d.CreationTime
	}
	if a, b := at["evt_review_flag_raised/"], at["evt_flag2/"]; a >= b {
		t.Errorf("the admin inbox's flags written in order have creation times %d, %d", a, b)
	}

	// Malformed data of a handled type fails the handler, and nothing is stored.
	bad := envelope(domain.EventPaymentFailed, `{"paymentIntentId":7}`)
	if err := db.Tx(ctx, func(tx context.Context) error { return s.onEvent(tx, bad) }); err == nil {
		t.Fatal("malformed payment.failed accepted")
	}
	if n, _ := db.Collection("notifications").CountDocuments(ctx, bson.M{"eventId": bad.ID}); n != 0 {
		t.Fatalf("%d notifications stored for a malformed event", n)
	}
}
