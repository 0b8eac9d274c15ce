// Package processor plays the payment processor's side for development and tests:
// it signs webhook bodies and builds the events it would send, and its
// Simulator (simulator.go: the API it serves; money.go: refunds, disputes and
// payouts; deliveries.go: their queued webhooks and the controls that make
// them fail, wait or be held) is the processor of `make run` and
// `marketplace processor`. PROCESSOR_SIMULATOR_WEBHOOK_DELAY (EnvWebhookDelay,
// e.g. 5s) postpones every queued webhook, for demos.
package processor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Sign is the processor-signature header for body: t=<unix>,v1=<hex HMAC-SHA256 of
// "<t>.<body>"> keyed with the webhook secret.
func Sign(secret string, body []byte, at time.Time) string {
	t := at.Unix()
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.", t)
	mac.Write(body)
	return fmt.Sprintf("t=%d,v1=%s", t, hex.EncodeToString(mac.Sum(nil)))
}

// Address is the delivery address carried, JSON-encoded, in the metadata.
type Address struct {
	FullAddress string `json:"fullAddress"`
	City        string `json:"city"`
	Area        string `json:"area"`
	PhoneNumber string `json:"phoneNumber"`
}

// Payment describes a payment intent.
type Payment struct {
	IntentID     string
	AmountFils   int64
	Currency     string // "aed" when empty
	CustomerID   string
	StoreID      string
	Address      Address
	DeliveryType string
	DeliveryFee  string // decimal text, e.g. "10.00"
	FailMessage  string // for payment_intent.payment_failed
}

// Event builds the JSON body of a processor event of type for p.
func Event(eventID, eventType string, p Payment) []byte {
	addr, _ := json.Marshal(p.Address)
	cur := p.Currency
	if cur == "" {
		cur = "aed"
	}
	obj := map[string]any{
		"id": p.IntentID, "object": "payment_intent", "amount": p.AmountFils, "currency": cur,
		"metadata": map[string]string{
			"customerId": p.CustomerID, "storeId": p.StoreID, "deliveryAddress": string(addr),
			"deliveryType": p.DeliveryType, "deliveryFee": p.DeliveryFee,
		},
	}
	if p.FailMessage != "" {
		obj["last_payment_error"] = map[string]string{"message": p.FailMessage}
	}
	b, _ := json.Marshal(map[string]any{
		"id": eventID, "object": "event", "type": eventType, "created": time.Now().Unix(),
		"data": map[string]any{"object": obj},
	})
	return b
}
