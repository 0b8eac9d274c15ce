package payouts

import (
	"encoding/json"
	"testing"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// withAdded is v as a JSON object with the fields a later compatible release
// of its producer adds.
func withAdded(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["addedInANextVersion"] = "x"
	m["addedObject"] = map[string]any{"nested": []any{1, 2, map[string]any{"deep": true}}}
	return m
}

// Fields a producer adds to the store and order events (a compatible change,
// as the next release's build makes) are ignored: the store's wallet opens,
// the delivered order is found in the batch and credited, as without them.
func TestAddedPayloadFieldsAreIgnored(t *testing.T) {
	ts := newTestSvc(t)
	storeID, orderID := ids.New("stores"), ids.New("orders")
	created := catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971501234567"}
	ts.setStore(created)
	delivered := ts.delivered(orderID, storeID, 8070)

	for typ, data := range map[string]any{catalog.EventStoreCreated: created, customers.EventOrderStatusChanged: delivered} {
		raw, _ := json.Marshal(withAdded(t, data))
		env := events.Envelope{ID: "evt_1", Type: typ, Data: raw}
		if got := storeEventOf(env) + deliveredOrderOf(env); got != storeID && got != orderID {
			t.Errorf("%s with added fields: prepare reads %q", typ, got)
		}
	}
	ts.deliver(t, catalog.EventStoreCreated, withAdded(t, created))
	ts.deliver(t, customers.EventOrderStatusChanged, withAdded(t, delivered))
	w := ts.wallet(t, storeID)
	if w.OwnerName != "Sara" || w.StoreName != "Bakery" || w.PendingBalance != 8070 || w.TotalOrders != 1 {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}
