package payments

import (
	"encoding/json"
	"strings"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
)

var (
	testCustomer = ids.New("customers")
	testStore    = ids.New("stores")
)

func validAddress() string {
	return `{"fullAddress":"Villa 12, Street 5","city":"Dubai","area":"Jumeirah","phoneNumber":"+971501234567"}`
}

// validMetadata is the metadata of a succeeded payment that can become an order.
func validMetadata() map[string]any {
	return map[string]any{
		"customerId":      testCustomer,
		"storeId":         testStore,
		"deliveryAddress": validAddress(),
		"deliveryType":    "standard",
		"deliveryFee":     "10.00",
	}
}

// intentJSON is a payment intent object with the given metadata.
func intentJSON(t *testing.T, id string, amount any, currency string, meta map[string]any) json.RawMessage {
	t.Helper()
	obj := map[string]any{"id": id, "object": "payment_intent", "currency": currency, "metadata": meta}
	if amount != nil {
		obj["amount"] = amount
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOrderFromValidMetadata(t *testing.T) {
	p, err := parseIntent(intentJSON(t, "pi_1", 15750, "AED", validMetadata()))
	if err != nil {
		t.Fatal(err)
	}
	o, err := orderFrom(p)
	if err != nil {
		t.Fatal(err)
	}
	want := orderRequest{
		CustomerID: testCustomer, StoreID: testStore, PaymentIntentID: "pi_1",
		DeliveryAddress: DeliveryAddress{FullAddress: "Villa 12, Street 5", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501234567"},
		DeliveryType:    "standard", DeliveryFee: 1000, AmountPaid: 15750, Currency: "aed",
	}
	if *o != want {
		t.Fatalf("order = %+v, want %+v", *o, want)
	}
	args, err := json.Marshal(o.request())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(args, &got); err != nil {
		t.Fatal(err)
	}
	if got["deliveryFee"] != 10.0 || got["amountPaid"] != 157.5 || got["paymentIntentId"] != "pi_1" {
		t.Fatalf("args = %s", args)
	}
}

func TestOrderFromRefusesBadMetadata(t *testing.T) {
	with := func(key string, v any) map[string]any {
		m := validMetadata()
		if v == nil {
			delete(m, key)
		} else {
			m[key] = v
		}
		return m
	}
	addr := func(mutate func(m map[string]any)) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(validAddress()), &m)
		mutate(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name     string
		amount   any
		currency string
		meta     map[string]any
		field    string // must appear in the message
	}{
		{"currency not a code", 15750, "dirham", validMetadata(), "currency"},
		{"currency missing", 15750, "", validMetadata(), "currency"},
		{"amount zero", 0, "aed", validMetadata(), "amount"},
		{"amount missing", nil, "aed", validMetadata(), "amount"},
		{"customerId missing", 100, "aed", with("customerId", nil), "metadata.customerId"},
		{"customerId empty", 100, "aed", with("customerId", ""), "metadata.customerId"},
		{"customerId malformed", 100, "aed", with("customerId", "cus_123"), "metadata.customerId"},
		{"customerId of another kind", 100, "aed", with("customerId", testStore), "metadata.customerId"},
		{"customerId not a string", 100, "aed", with("customerId", 12), "metadata.customerId"},
		{"storeId missing", 100, "aed", with("storeId", nil), "metadata.storeId"},
		{"storeId malformed", 100, "aed", with("storeId", "sto_zz"), "metadata.storeId"},
		{"storeId a customer id", 100, "aed", with("storeId", testCustomer), "metadata.storeId"},
		{"address missing", 100, "aed", with("deliveryAddress", nil), "metadata.deliveryAddress"},
		{"address not JSON", 100, "aed", with("deliveryAddress", "Villa 12, Dubai"), "metadata.deliveryAddress"},
		{"address JSON array", 100, "aed", with("deliveryAddress", `["a"]`), "metadata.deliveryAddress"},
		{"address JSON null", 100, "aed", with("deliveryAddress", `null`), "metadata.deliveryAddress"},
		{"address an object, not a string", 100, "aed", with("deliveryAddress", map[string]any{"city": "Dubai"}), "metadata.deliveryAddress"},
		{"address without city", 100, "aed", with("deliveryAddress", addr(func(m map[string]any) { delete(m, "city") })), "deliveryAddress.city"},
		{"address empty area", 100, "aed", with("deliveryAddress", addr(func(m map[string]any) { m["area"] = "  " })), "deliveryAddress.area"},
		{"address fullAddress null", 100, "aed", with("deliveryAddress", addr(func(m map[string]any) { m["fullAddress"] = nil })), "deliveryAddress.fullAddress"},
		{"address phone a number", 100, "aed", with("deliveryAddress", addr(func(m map[string]any) { m["phoneNumber"] = 501234567 })), "deliveryAddress.phoneNumber"},
		{"deliveryType missing", 100, "aed", with("deliveryType", nil), "metadata.deliveryType"},
		{"deliveryType blank", 100, "aed", with("deliveryType", " "), "metadata.deliveryType"},
		{"deliveryFee missing", 100, "aed", with("deliveryFee", nil), "metadata.deliveryFee"},
		{"deliveryFee empty", 100, "aed", with("deliveryFee", ""), "metadata.deliveryFee"},
		{"deliveryFee negative", 100, "aed", with("deliveryFee", "-1.00"), "metadata.deliveryFee"},
		{"deliveryFee three decimals", 100, "aed", with("deliveryFee", "10.005"), "metadata.deliveryFee"},
		{"deliveryFee words", 100, "aed", with("deliveryFee", "ten"), "metadata.deliveryFee"},
		{"deliveryFee NaN", 100, "aed", with("deliveryFee", "NaN"), "metadata.deliveryFee"},
		{"deliveryFee Inf", 100, "aed", with("deliveryFee", "Inf"), "metadata.deliveryFee"},
		{"deliveryFee hex", 100, "aed", with("deliveryFee", "0x10"), "metadata.deliveryFee"},
		{"deliveryFee exponent", 100, "aed", with("deliveryFee", "1e2"), "metadata.deliveryFee"},
		{"deliveryFee huge", 100, "aed", with("deliveryFee", "99999999999"), "metadata.deliveryFee"},
		{"deliveryFee a number", 100, "aed", with("deliveryFee", 10), "metadata.deliveryFee"},
		{"no metadata", 100, "aed", nil, "metadata.customerId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseIntent(intentJSON(t, "pi_1", c.amount, c.currency, c.meta))
			if err != nil {
				t.Fatal(err)
			}
			o, err := orderFrom(p)
			if err == nil {
				t.Fatalf("accepted: %+v", o)
			}
			if apperr.CodeOf(err) != apperr.InvalidArgument || statusOf(err) != 400 {
				t.Fatalf("err = %v, want INVALID_ARGUMENT (400)", err)
			}
			if !strings.Contains(err.Error(), c.field) {
				t.Fatalf("err = %v, want it to name %s", err, c.field)
			}
		})
	}
}

func TestParseFee(t *testing.T) {
	cases := []struct {
		in   string
		want money.Fils
	}{
		{"0", 0}, {"0.00", 0}, {"10", 1000}, {"10.00", 1000}, {"10.5", 1050}, {"7.25", 725},
		{" 3.10 ", 310}, {"10.000", 1000}, {"0.01", 1}, {"1000000", 100000000},
	}
	for _, c := range cases {
		got, err := parseFee(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseFee(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParseIntent(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		ok   bool
	}{
		{"full", `{"id":"pi_1","amount":100,"currency":"aed","metadata":{},"last_payment_error":{"message":"declined"}}`, true},
		{"null error and metadata", `{"id":"pi_1","amount":100,"currency":"aed","metadata":null,"last_payment_error":null}`, true},
		{"no amount", `{"id":"pi_1"}`, true},
		{"no id", `{"amount":100}`, false},
		{"blank id", `{"id":" "}`, false},
		{"id a number", `{"id":12}`, false},
		{"fractional amount", `{"id":"pi_1","amount":10.5}`, false},
		{"negative amount", `{"id":"pi_1","amount":-1}`, false},
		{"huge amount", `{"id":"pi_1","amount":1e20}`, false},
		{"amount a word", `{"id":"pi_1","amount":"ten"}`, false},
		{"amount a numeric string", `{"id":"pi_1","amount":"1"}`, false},
		{"amount an exponent", `{"id":"pi_1","amount":1e3}`, false},
		{"amount with a point", `{"id":"pi_1","amount":100.0}`, false},
		{"amount an object", `{"id":"pi_1","amount":{}}`, false},
		{"metadata an array", `{"id":"pi_1","metadata":[]}`, false},
		{"not an object", `"pi_1"`, false},
		{"missing", ``, false},
		{"null", `null`, false},
	}
	for _, c := range cases {
		p, err := parseIntent(json.RawMessage(c.raw))
		if (err == nil) != c.ok {
			t.Errorf("%s: parseIntent = %+v, %v; ok want %v", c.name, p, err, c.ok)
			continue
		}
		if err != nil && statusOf(err) != 400 {
			t.Errorf("%s: status %d, want 400", c.name, statusOf(err))
		}
	}
	p, err := parseIntent(json.RawMessage(`{"id":"pi_1","amount":2500,"currency":"AED","last_payment_error":{"message":"card declined"}}`))
	if err != nil || p.Amount != 2500 || p.Currency != "aed" || p.FailureMessage != "card declined" {
		t.Fatalf("parseIntent = %+v, %v", p, err)
	}
}

func TestParseEvent(t *testing.T) {
	for _, raw := range []string{``, `{`, `[]`, `{"type":"x"}`, `{"id":"evt_1"}`, `{"id":"","type":"x"}`, `{"id":1,"type":"x"}`} {
		if _, err := parseEvent([]byte(raw)); err == nil || statusOf(err) != 400 {
			t.Errorf("parseEvent(%s) = %v, want a 400 error", raw, err)
		}
	}
	ev, err := parseEvent([]byte(`{"id":"evt_1","type":"x.y","api_version":"2024-01-01","data":{"object":{"id":"pi_1"}}}`))
	if err != nil || ev.ID != "evt_1" || ev.Type != "x.y" || string(ev.Data.Object) != `{"id":"pi_1"}` {
		t.Fatalf("parseEvent = %+v, %v", ev, err)
	}
}

// Metadata text becomes an order's text: control and bidirectional override
// characters are replaced with spaces rather than refusing a paid order.
func TestOrderFromCleansMetadataText(t *testing.T) {
	m := validMetadata()
	m["deliveryAddress"] = `{"fullAddress":"Villa 12\u0000\u001b[31m, Street 5","city":"Dubai\u202e","area":"Jumeirah","phoneNumber":"+971501234567"}`
	m["deliveryType"] = "standard\n"
	p, err := parseIntent(intentJSON(t, "pi_1", 15750, "aed", m))
	if err != nil {
		t.Fatal(err)
	}
	o, err := orderFrom(p)
	if err != nil {
		t.Fatal(err)
	}
	if o.DeliveryAddress.FullAddress != "Villa 12  [31m, Street 5" || o.DeliveryAddress.City != "Dubai" || o.DeliveryType != "standard" {
		t.Fatalf("cleaned = %+v", o)
	}
}
