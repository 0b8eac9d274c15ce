package payments

// The processor's objects of the refund and dispute events (Stripe's shapes,
// docs/adr/0149-refunds-and-disputes-at-the-processor.md): a Refund, a Charge
// with its refunds, a Dispute. Each is read strictly: what the webhook acts
// on must be there and well formed, or the delivery is refused (400) naming
// the field.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// Event types of refunds and disputes.
const (
	typeChargeRefunded = "charge.refunded"
	typeRefundFailed   = "refund.failed"
	typeDisputeCreated = "charge.dispute.created"
	typeDisputeClosed  = "charge.dispute.closed"
)

// refundObject is a processor Refund.
type refundObject struct {
	ID            string
	Amount        money.Fils
	Currency      string
	PaymentIntent string
	Status        string
	FailureReason string
	RefundID      string // metadata.refundId: "" for a refund made at the processor
	OrderID       string // metadata.orderId
}

// chargeObject is a processor Charge with its refunds.
type chargeObject struct {
	ID            string
	PaymentIntent string
	Currency      string
	Refunds       []refundObject
}

// disputeObject is a processor Dispute. Times are epoch ms.
type disputeObject struct {
	ID            string
	Amount        money.Fils
	Currency      string
	Charge        string
	PaymentIntent string
	Reason        string
	Status        string
	DueBy         int64
	Created       int64
}

// object checks that raw is a JSON object of the named kind and decodes it.
func object(raw json.RawMessage, field, kind string, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return apperr.Invalid(field, "must be a %s object", kind)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return apperr.New(apperr.InvalidArgument, "%s is not a %s: %v", field, kind, err)
	}
	return nil
}

// wholeNumber reads an integer JSON number in [0, max]; absent or null is
// -1 when required is false.
func wholeNumber(raw json.RawMessage, field string, max int64, required bool) (int64, error) {
	a := bytes.TrimSpace(raw)
	if len(a) == 0 || string(a) == "null" {
		if required {
			return 0, apperr.Invalid(field, "is required")
		}
		return -1, nil
	}
	n, err := strconv.ParseInt(string(a), 10, 64)
	if err != nil || n < 0 || n > max {
		return 0, apperr.Invalid(field, "must be a whole non-negative JSON number, got %s", a)
	}
	return n, nil
}

// idOf reads an id that is either a string or an expanded object with an id.
func idOf(raw json.RawMessage, field string, required bool) (string, error) {
	a := bytes.TrimSpace(raw)
	var id string
	switch {
	case len(a) == 0 || string(a) == "null":
	case a[0] == '"':
		if err := json.Unmarshal(a, &id); err != nil {
			return "", apperr.Invalid(field, "must be an id")
		}
	case a[0] == '{':
		var o struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(a, &o); err != nil {
			return "", apperr.Invalid(field, "must be an id or an object with one")
		}
		id = o.ID
	default:
		return "", apperr.Invalid(field, "must be an id")
	}
	id = strings.TrimSpace(id)
	if id == "" && required {
		return "", apperr.Invalid(field, "is required")
	}
	if len(id) > 255 {
		return "", apperr.Invalid(field, "is longer than 255 characters")
	}
	return id, nil
}

// metaString is a metadata value (processor metadata values are strings);
// absent or null is "".
func metaString(m map[string]json.RawMessage, key, field string) (string, error) {
	raw, ok := m[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", apperr.Invalid(field+".metadata."+key, "must be a string")
	}
	return cleanText(s), nil
}

func currencyOf(c, field string) (string, error) {
	c = strings.ToLower(strings.TrimSpace(c))
	if !currencyCode.MatchString(c) {
		return "", apperr.Invalid(field, "must be a three-letter currency code, got %q", c)
	}
	return c, nil
}

// rawRefund is a Refund as sent.
type rawRefund struct {
	ID            string                     `json:"id"`
	Amount        json.RawMessage            `json:"amount"`
	Currency      string                     `json:"currency"`
	PaymentIntent json.RawMessage            `json:"payment_intent"`
	Status        string                     `json:"status"`
	FailureReason string                     `json:"failure_reason"`
	Metadata      map[string]json.RawMessage `json:"metadata"`
}

// read checks a Refund; field names it in messages.
func (o rawRefund) read(field string) (refundObject, error) {
	r := refundObject{ID: strings.TrimSpace(o.ID), Status: strings.TrimSpace(o.Status), FailureReason: cleanText(o.FailureReason)}
	if r.ID == "" {
		return r, apperr.Invalid(field+".id", "is required")
	}
	n, err := wholeNumber(o.Amount, field+".amount", int64(MaxCharge), true)
	if err != nil {
		return r, err
	}
	r.Amount = money.Fils(n)
	if r.Currency, err = currencyOf(o.Currency, field+".currency"); err != nil {
		return r, err
	}
	if r.PaymentIntent, err = idOf(o.PaymentIntent, field+".payment_intent", true); err != nil {
		return r, err
	}
	if r.RefundID, err = metaString(o.Metadata, "refundId", field); err != nil {
		return r, err
	}
	if len(r.RefundID) > 255 {
		return r, apperr.Invalid(field+".metadata.refundId", "is longer than 255 characters")
	}
	if r.OrderID, err = metaString(o.Metadata, "orderId", field); err != nil {
		return r, err
	}
	return r, nil
}

// parseRefund reads refund.failed's object.
func parseRefund(raw json.RawMessage) (refundObject, error) {
	var o rawRefund
	if err := object(raw, "data.object", "refund", &o); err != nil {
		return refundObject{}, err
	}
	return o.read("data.object")
}

// parseCharge reads charge.refunded's object and every refund it lists.
func parseCharge(raw json.RawMessage) (chargeObject, error) {
	var o struct {
		ID            string          `json:"id"`
		Currency      string          `json:"currency"`
		PaymentIntent json.RawMessage `json:"payment_intent"`
		Refunds       *struct {
			Data []rawRefund `json:"data"`
		} `json:"refunds"`
	}
	if err := object(raw, "data.object", "charge", &o); err != nil {
		return chargeObject{}, err
	}
	c := chargeObject{ID: strings.TrimSpace(o.ID)}
	if c.ID == "" {
		return c, apperr.Invalid("data.object.id", "is required")
	}
	var err error
	if c.Currency, err = currencyOf(o.Currency, "data.object.currency"); err != nil {
		return c, err
	}
	if c.PaymentIntent, err = idOf(o.PaymentIntent, "data.object.payment_intent", true); err != nil {
		return c, err
	}
	if o.Refunds == nil {
		return c, apperr.Invalid("data.object.refunds", "is required: the charge's refunds (a list)")
	}
	for i, rr := range o.Refunds.Data {
		r, err := rr.read("data.object.refunds.data[" + strconv.Itoa(i) + "]")
		if err != nil {
			return c, err
		}
		if r.PaymentIntent != c.PaymentIntent {
			return c, apperr.Invalid("data.object.refunds.data["+strconv.Itoa(i)+"].payment_intent", "is %q, not the charge's %q", r.PaymentIntent, c.PaymentIntent)
		}
		c.Refunds = append(c.Refunds, r)
	}
	return c, nil
}

// parseDispute reads a dispute event's object.
func parseDispute(raw json.RawMessage) (disputeObject, error) {
	var o struct {
		ID              string          `json:"id"`
		Amount          json.RawMessage `json:"amount"`
		Currency        string          `json:"currency"`
		Charge          json.RawMessage `json:"charge"`
		PaymentIntent   json.RawMessage `json:"payment_intent"`
		Reason          string          `json:"reason"`
		Status          string          `json:"status"`
		Created         json.RawMessage `json:"created"`
		EvidenceDetails *struct {
			DueBy json.RawMessage `json:"due_by"`
		} `json:"evidence_details"`
	}
	if err := object(raw, "data.object", "dispute", &o); err != nil {
		return disputeObject{}, err
	}
	d := disputeObject{ID: strings.TrimSpace(o.ID), Reason: cleanText(o.Reason), Status: strings.TrimSpace(o.Status)}
	if d.ID == "" {
		return d, apperr.Invalid("data.object.id", "is required")
	}
	if len(d.ID) > 255 {
		return d, apperr.Invalid("data.object.id", "is longer than 255 characters")
	}
	n, err := wholeNumber(o.Amount, "data.object.amount", int64(MaxCharge), true)
	if err != nil {
		return d, err
	}
	if n == 0 {
		return d, apperr.Invalid("data.object.amount", "must be positive")
	}
	d.Amount = money.Fils(n)
	if d.Currency, err = currencyOf(o.Currency, "data.object.currency"); err != nil {
		return d, err
	}
	if d.Charge, err = idOf(o.Charge, "data.object.charge", false); err != nil {
		return d, err
	}
	if d.PaymentIntent, err = idOf(o.PaymentIntent, "data.object.payment_intent", true); err != nil {
		return d, err
	}
	const maxSeconds = 1 << 35 // beyond the year 3000
	created, err := wholeNumber(o.Created, "data.object.created", maxSeconds, true)
	if err != nil {
		return d, err
	}
	d.Created = created * 1000
	var due json.RawMessage
	if o.EvidenceDetails != nil {
		due = o.EvidenceDetails.DueBy
	}
	dueBy, err := wholeNumber(due, "data.object.evidence_details.due_by", maxSeconds, false)
	if err != nil {
		return d, err
	}
	if dueBy > 0 {
		d.DueBy = dueBy * 1000
	}
	return d, nil
}
