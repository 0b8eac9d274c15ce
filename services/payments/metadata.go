package payments

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
)

// event is the part of a processor event every type shares.
type event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// parseEvent reads the envelope only: the object is read by the handler of its
// type, so an event type this service ignores is acknowledged whatever its object.
func parseEvent(body []byte) (*event, error) {
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, apperr.New(apperr.InvalidArgument, "body is not a processor event: %v", err)
	}
	if strings.TrimSpace(ev.ID) == "" {
		return nil, apperr.Invalid("id", "is required")
	}
	if strings.TrimSpace(ev.Type) == "" {
		return nil, apperr.Invalid("type", "is required")
	}
	return &ev, nil
}

// paymentIntent is the data.object of the payment_intent.* events.
type paymentIntent struct {
	ID             string
	Amount         money.Fils // minor units: fils for AED
	Currency       string     // lower case
	Metadata       map[string]json.RawMessage
	FailureMessage string // last_payment_error.message
}

// parseIntent reads a payment intent. The id is required (it is the order's
// payment reference); a missing amount reads as 0.
func parseIntent(raw json.RawMessage) (*paymentIntent, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, apperr.Invalid("data.object", "must be a payment intent object")
	}
	var obj struct {
		ID               string                     `json:"id"`
		Amount           json.RawMessage            `json:"amount"`
		Currency         string                     `json:"currency"`
		Metadata         map[string]json.RawMessage `json:"metadata"`
		LastPaymentError *struct {
			Message string `json:"message"`
		} `json:"last_payment_error"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, apperr.New(apperr.InvalidArgument, "data.object is not a payment intent: %v", err)
	}
	p := &paymentIntent{ID: strings.TrimSpace(obj.ID), Currency: strings.ToLower(strings.TrimSpace(obj.Currency)), Metadata: obj.Metadata}
	if p.ID == "" {
		return nil, apperr.Invalid("data.object.id", "is required")
	}
	if a := bytes.TrimSpace(obj.Amount); len(a) > 0 && string(a) != "null" {
		// An integer JSON number of minor units, as the processor sends it: not
		// a string ("1"), not a fraction, not an exponent.
		n, err := strconv.ParseInt(string(a), 10, 64)
		if err != nil || n < 0 || n > money.MaxAED*100 {
			return nil, apperr.Invalid("data.object.amount", "must be a whole non-negative JSON number of minor units, got %s", a)
		}
		p.Amount = money.Fils(n)
	}
	if obj.LastPaymentError != nil {
		p.FailureMessage = obj.LastPaymentError.Message
	}
	return p, nil
}

// meta is a metadata value; absent or null is "". Processor metadata values are
// always strings: anything else is refused.
func (p *paymentIntent) meta(key string) (string, error) {
	raw, ok := p.Metadata[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", apperr.Invalid("metadata."+key, "must be a string")
	}
	return s, nil
}

// cleanText makes metadata text obey the text rules of every stored string
// (ops.CheckText): a paid order must not be refused for a stray control
// character the checkout let through, so each one becomes a space instead.
func cleanText(s string) string {
	clean := strings.Map(func(r rune) rune {
		if _, err := ops.CheckText(string(r), "", false); err != nil {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(clean)
}

// metaID is an optional metadata id of kind: "" when absent.
func (p *paymentIntent) metaID(key, kind string) (string, error) {
	s, err := p.meta(key)
	if err != nil || s == "" {
		return "", err
	}
	if !ids.Valid(kind, s) {
		return "", apperr.Invalid("metadata."+key, "%q is not a well-formed id of %s", s, kind)
	}
	return s, nil
}

// requiredID is a metadata id of kind that must be present.
func (p *paymentIntent) requiredID(key, kind string) (string, error) {
	s, err := p.metaID(key, kind)
	if err == nil && s == "" {
		err = apperr.Invalid("metadata."+key, "is required")
	}
	return s, err
}

// DeliveryAddress is the address a paid order is delivered to (the customers
// service's contract).
type DeliveryAddress = customers.DeliveryAddress

// orderRequest is a succeeded payment read and checked, ready to become an order.
type orderRequest struct {
	CustomerID      string
	StoreID         string
	PaymentIntentID string
	DeliveryAddress DeliveryAddress
	DeliveryType    string
	DeliveryFee     money.Fils
	AmountPaid      money.Fils // minor units of Currency
	Currency        string
}

// request is customers.cartToOrder.createOrderFromCart's request; money
// crosses the interface as AED numbers.
func (o *orderRequest) request() customers.CreateOrder {
	return customers.CreateOrder{
		CustomerID: o.CustomerID, StoreID: o.StoreID, PaymentIntentID: o.PaymentIntentID, DeliveryAddress: o.DeliveryAddress,
		DeliveryType: o.DeliveryType, DeliveryFee: o.DeliveryFee.AED(), AmountPaid: o.AmountPaid.AED(), Currency: o.Currency,
	}
}

// currencyCode is an ISO 4217 code as the processor writes it (lower case).
var currencyCode = regexp.MustCompile(`^[a-z]{3}$`)

// decimal is a plain non-negative decimal: digits, optionally a point and digits.
var decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// parseFee reads a delivery fee such as "10.00": a non-negative AED amount with
// at most two decimals (trailing zeros beyond them are fine: "10.000" is 10).
func parseFee(s string) (money.Fils, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, apperr.Invalid("metadata.deliveryFee", "is required")
	}
	if !decimal.MatchString(s) {
		return 0, apperr.Invalid("metadata.deliveryFee", "%q is not a non-negative decimal number such as \"10.00\"", s)
	}
	fils, err := money.ParseAED(s)
	if err != nil {
		return 0, apperr.Invalid("metadata.deliveryFee", "%q %v", s, err)
	}
	return fils, nil
}

// parseAddress reads the deliveryAddress metadata: a JSON-encoded object whose
// fullAddress, city, area and phoneNumber are non-empty strings.
func parseAddress(s string) (DeliveryAddress, error) {
	const field = "metadata.deliveryAddress"
	if strings.TrimSpace(s) == "" {
		return DeliveryAddress{}, apperr.Invalid(field, "is required")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return DeliveryAddress{}, apperr.Invalid(field, "must be a JSON-encoded object with fullAddress, city, area and phoneNumber")
	}
	var a DeliveryAddress
	for _, f := range []struct {
		key string
		dst *string
	}{{"fullAddress", &a.FullAddress}, {"city", &a.City}, {"area", &a.Area}, {"phoneNumber", &a.PhoneNumber}} {
		raw, ok := m[f.key]
		if !ok || string(bytes.TrimSpace(raw)) == "null" {
			return DeliveryAddress{}, apperr.Invalid(field+"."+f.key, "is required")
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return DeliveryAddress{}, apperr.Invalid(field+"."+f.key, "must be a string")
		}
		if v = cleanText(v); v == "" {
			return DeliveryAddress{}, apperr.Invalid(field+"."+f.key, "must not be empty")
		}
		*f.dst = v
	}
	return a, nil
}

// orderFrom checks a payment intent and its metadata. Every error is
// INVALID_ARGUMENT naming the offending field. The amount and currency are not
// judged here: the order they pay for is, and one that does not match its
// total is held for review rather than refused (the customer was charged).
func orderFrom(p *paymentIntent) (*orderRequest, error) {
	o := &orderRequest{PaymentIntentID: p.ID, AmountPaid: p.Amount, Currency: p.Currency}
	if !currencyCode.MatchString(p.Currency) {
		return nil, apperr.Invalid("data.object.currency", "must be a three-letter currency code, got %q", p.Currency)
	}
	if p.Amount <= 0 {
		return nil, apperr.Invalid("data.object.amount", "must be positive")
	}
	var err error
	if o.CustomerID, err = p.requiredID("customerId", "customers"); err != nil {
		return nil, err
	}
	if o.StoreID, err = p.requiredID("storeId", "stores"); err != nil {
		return nil, err
	}
	addr, err := p.meta("deliveryAddress")
	if err != nil {
		return nil, err
	}
	if o.DeliveryAddress, err = parseAddress(addr); err != nil {
		return nil, err
	}
	if o.DeliveryType, err = p.meta("deliveryType"); err != nil {
		return nil, err
	}
	if o.DeliveryType = cleanText(o.DeliveryType); o.DeliveryType == "" {
		return nil, apperr.Invalid("metadata.deliveryType", "is required")
	}
	fee, err := p.meta("deliveryFee")
	if err != nil {
		return nil, err
	}
	if o.DeliveryFee, err = parseFee(fee); err != nil {
		return nil, err
	}
	return o, nil
}
