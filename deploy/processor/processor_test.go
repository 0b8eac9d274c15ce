package processor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func TestSignMatchesTheScheme(t *testing.T) {
	at := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1"}`)
	mac := hmac.New(sha256.New, []byte("whsec"))
	mac.Write([]byte("1700000000." + string(body)))
	want := fmt.Sprintf("t=1700000000,v1=%s", hex.EncodeToString(mac.Sum(nil)))
	if got := Sign("whsec", body, at); got != want {
		t.Fatalf("%s != %s", got, want)
	}
}

func TestEventCarriesTheMetadata(t *testing.T) {
	b := Event("evt_1", "payment_intent.succeeded", Payment{IntentID: "pi_1", AmountFils: 1234, CustomerID: "cus_x", StoreID: "sto_y",
		Address: Address{FullAddress: "A", City: "Dubai", Area: "Marina", PhoneNumber: "+971"}, DeliveryType: "standard", DeliveryFee: "10.00"})
	var e struct {
		ID, Type string
		Data     struct {
			Object struct {
				ID       string            `json:"id"`
				Amount   int64             `json:"amount"`
				Currency string            `json:"currency"`
				Metadata map[string]string `json:"metadata"`
			} `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	var addr Address
	if err := json.Unmarshal([]byte(e.Data.Object.Metadata["deliveryAddress"]), &addr); err != nil || addr.Area != "Marina" {
		t.Fatalf("address %q: %v", e.Data.Object.Metadata["deliveryAddress"], err)
	}
	if e.ID != "evt_1" || e.Type != "payment_intent.succeeded" || e.Data.Object.ID != "pi_1" || e.Data.Object.Amount != 1234 ||
		e.Data.Object.Currency != "aed" || e.Data.Object.Metadata["deliveryFee"] != "10.00" || e.Data.Object.Metadata["storeId"] != "sto_y" {
		t.Fatalf("event %s", b)
	}
}
