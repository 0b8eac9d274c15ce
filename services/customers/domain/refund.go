package domain

import (
	"strings"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/money"
)

const (
	contractDisputeOpen = payments.DisputeOpen
	contractDisputeLost = payments.DisputeLost
)

// Refund statuses and origins, as the contract names them.
const (
	RefundRequested = contract.RefundStatusRequested
	RefundSucceeded = contract.RefundStatusSucceeded
	RefundFailed    = contract.RefundStatusFailed

	RefundByAdmin        = contract.RefundByAdmin
	RefundByStore        = contract.RefundByStore
	RefundByCancellation = contract.RefundByCancellation
	RefundByProcessor    = contract.RefundByProcessor
)

// StoreRefundWindow is how long after delivery a store's owner may still
// refund an order, in ms (14 days; docs/adr/0146-refunds.md). Administrators
// have no window.
const StoreRefundWindow int64 = 14 * 24 * 60 * 60 * 1000

// MaxRefunds is the most refunds requested or succeeded one order takes from
// its store's owner or an administrator asking an amount or lines (failed
// ones do not count): what one caller can make an order document hold. All
// that is left (an administrator's, or a cancellation's) is taken while the
// order keeps fewer than MaxRefundRecords refunds of any status.
const (
	MaxRefunds       = 50
	MaxRefundRecords = 200
)

// Reasons (details.reason) of the refusals of a refund.
const (
	ReasonRefundExceedsPayment = "refund_exceeds_payment"
	ReasonRefundWindowClosed   = "refund_window_closed"
	ReasonRefundNotAllowed     = "refund_not_allowed"
	ReasonDisputeOpen          = "dispute_open"
	ReasonTooManyRefunds       = "too_many_refunds"
	ReasonNothingToRefund      = "nothing_to_refund"
	ReasonRefundDuplicate      = "refund_duplicate"
)

// DuplicateRefundWindow is how long, in ms, a refund asked without an
// Idempotency-Key is taken for a retry of an identical one still requested
// (10 minutes; docs/adr/0146-refunds.md).
const DuplicateRefundWindow int64 = 10 * 60 * 1000

// RefundLine is a quantity of one of the order's lines refunded.
type RefundLine struct {
	ProductID string `bson:"productId" json:"productId" op:"required,id=products"`
	Quantity  int    `bson:"quantity" json:"quantity" op:"required,min=1,max=1000000"`
}

// Refund is one refund of an order: reserved when asked (requested), then
// succeeded or failed as the processor says. Amount is in the minor units of
// the order's payment currency (fils for AED).
type Refund struct {
	ID                string       `bson:"id"`
	Amount            money.Fils   `bson:"amount"`
	Lines             []RefundLine `bson:"lines,omitempty"`
	DeliveryFee       bool         `bson:"deliveryFee,omitempty"` // the delivery fee is part of Amount
	AllLeft           bool         `bson:"allLeft,omitempty"`     // asked as all that is left (no amount, no lines)
	Reason            string       `bson:"reason"`
	Origin            string       `bson:"origin"`
	RequestedBy       string       `bson:"requestedBy"`
	Status            string       `bson:"status"`
	FailureReason     string       `bson:"failureReason,omitempty"`
	ProcessorRefundID string       `bson:"processorRefundId,omitempty"`
	RequestedAt       int64        `bson:"requestedAt"`
	SettledAt         int64        `bson:"settledAt,omitempty"`
}

// OrderDispute is a dispute of the order's payment as the payments service
// reported it: open disputes stop refunds, lost ones lower what can be
// refunded.
type OrderDispute struct {
	ID     string     `bson:"id"`
	Amount money.Fils `bson:"amount"`
	Status string     `bson:"status"`
	// Currency is the dispute's ("" before it was recorded: the payment's).
	// A dispute in another currency than the payment's takes nothing back
	// here, as payouts moves nothing for it (docs/adr/0153).
	Currency string `bson:"currency,omitempty"`
}

// RefundRequest is a refund asked of an order. Amount nil and no Lines: all
// that is left. Admin: the caller is an administrator (any paid or held order,
// any time); otherwise the store's owner (checked before), within the window.
// Unkeyed: asked without an Idempotency-Key, so refused as a retry while an
// identical refund is requested (duplicateOf).
type RefundRequest struct {
	ID      string
	Amount  *money.Fils
	Lines   []RefundLine
	Reason  string
	Origin  string
	By      string
	Admin   bool
	Unkeyed bool
}

// Paid is what the customer paid, in the minor units of the payment currency.
func (o *Order) Paid() money.Fils {
	if o.AmountPaid != nil {
		return *o.AmountPaid
	}
	return o.Total
}

// Currency is the payment's currency (aed for orders before it was recorded).
func (o *Order) Currency() string {
	if o.PaymentCurrency == "" {
		return "aed"
	}
	return o.PaymentCurrency
}

// Reserved is the sum of the refunds asked and not yet settled.
func (o *Order) Reserved() money.Fils {
	var n money.Fils
	for _, r := range o.Refunds {
		if r.Status == RefundRequested {
			n += r.Amount
		}
	}
	return n
}

// LostDisputes is what disputes lost took back from the payment (those in
// the payment's currency: payouts reverses no other).
func (o *Order) LostDisputes() money.Fils {
	var n money.Fils
	for _, d := range o.Disputes {
		if d.Status == contractDisputeLost && (d.Currency == "" || strings.EqualFold(d.Currency, o.Currency())) {
			n += d.Amount
		}
	}
	return n
}

func (o *Order) disputeOpen() bool {
	for _, d := range o.Disputes {
		if d.Status == contractDisputeOpen {
			return true
		}
	}
	return false
}

// liveRefunds counts the refunds requested or succeeded.
func (o *Order) liveRefunds() int {
	n := 0
	for _, r := range o.Refunds {
		if r.Status != RefundFailed {
			n++
		}
	}
	return n
}

// RefundOwed reserves the refund of what is left of a cancelled order when
// nothing asks for it any more: once its refunds are settled and one that
// was reserved before the cancellation failed (its reservation was freed),
// or once a dispute that kept the cancellation from refunding closed. A cancellation's own refund that
// failed is not asked again (the administrators are told; they refund it).
func (o *Order) RefundOwed(id string, now int64) *contract.RefundRequested {
	if o.Status != StatusCancelled || o.Reserved() > 0 {
		return nil
	}
	for _, r := range o.Refunds {
		if r.Origin == RefundByCancellation && r.Status == RefundFailed {
			return nil
		}
	}
	return o.RefundOnCancel(id, "system", now)
}

// Refundable is what may still be refunded: what was paid, less what was
// refunded, what refunds asked reserve and what disputes lost took.
func (o *Order) Refundable() money.Fils {
	n := o.Paid() - o.RefundedAmount - o.Reserved() - o.LostDisputes()
	return max(n, 0)
}

// RefundStatus is the order's refund status: "" while nothing was refunded,
// refunded once all that was paid was, partially_refunded in between.
func (o *Order) RefundStatus() string {
	switch {
	case o.RefundedAmount <= 0:
		return ""
	case o.RefundedAmount >= o.Paid():
		return contract.OrderRefundFull
	}
	return contract.OrderRefundPartial
}

// refundedQuantities are the quantities of each product refunded or reserved
// by line.
func (o *Order) refundedQuantities() map[string]int {
	q := map[string]int{}
	for _, r := range o.Refunds {
		if r.Status == RefundFailed {
			continue
		}
		for _, l := range r.Lines {
			q[l.ProductID] += l.Quantity
		}
	}
	return q
}

// deliveredAt is when the order was last marked delivered, or 0.
func (o *Order) deliveredAt() int64 {
	var at int64
	for _, h := range o.StatusHistory {
		if h.Status == StatusDelivered {
			at = h.At
		}
	}
	return at
}

func refusal(reason, format string, args ...any) *apperr.Error {
	return apperr.New(apperr.FailedPrecondition, format, args...).WithDetails(map[string]any{"reason": reason})
}

// mayRefund checks who may refund the order now: an administrator any order
// that was paid; the store's owner an order the platform does not hold, from
// confirmed until StoreRefundWindow after its delivery.
func (o *Order) mayRefund(admin bool, now int64) error {
	if o.Paid() <= 0 {
		return refusal(ReasonNothingToRefund, "order %s was paid nothing: there is nothing to refund", o.ID)
	}
	if admin {
		return nil
	}
	if o.Held() {
		return refusal(ReasonRefundNotAllowed, "order %s's payment is under review by the platform; an administrator refunds it", o.ID)
	}
	switch o.Status {
	case StatusConfirmed, StatusPreparing, StatusOutForDelivery:
		return nil
	case StatusDelivered:
		at := o.deliveredAt()
		until := at + StoreRefundWindow
		if now > until {
			e := refusal(ReasonRefundWindowClosed, "order %s was delivered more than 14 days ago: an administrator refunds it", o.ID)
			e.Details["deliveredAt"], e.Details["refundableUntil"] = at, until
			return e
		}
		return nil
	}
	return refusal(ReasonRefundNotAllowed, "a store refunds an order from confirmed until 14 days after its delivery; order %s is %s", o.ID, o.Status)
}

// priceLines is the amount of refunding lines, and whether they complete the
// refund of every line (then the delivery fee goes with them, decision D2).
func (o *Order) priceLines(lines []RefundLine) (money.Fils, bool, error) {
	done := o.refundedQuantities()
	asked := map[string]int{}
	var amount money.Fils
	for _, l := range lines {
		asked[l.ProductID] += l.Quantity
	}
	for _, l := range lines {
		var item *OrderItem
		for i := range o.Items {
			if o.Items[i].ProductID == l.ProductID {
				item = &o.Items[i]
				break
			}
		}
		if item == nil {
			return 0, false, apperr.New(apperr.InvalidArgument, "order %s has no line of product %s", o.ID, l.ProductID).
				WithDetails(map[string]any{"field": "lines", "productId": l.ProductID})
		}
		if left := item.Quantity - done[l.ProductID]; asked[l.ProductID] > left {
			return 0, false, apperr.New(apperr.FailedPrecondition, "order %s has %d of product %s left to refund, not %d", o.ID, left, l.ProductID, asked[l.ProductID]).
				WithDetails(map[string]any{"reason": ReasonRefundExceedsPayment, "productId": l.ProductID, "quantityLeft": left})
		}
		amount += item.UnitPrice * money.Fils(l.Quantity)
	}
	all := true
	for _, it := range o.Items {
		if done[it.ProductID]+asked[it.ProductID] < it.Quantity {
			all = false
		}
	}
	return amount, all, nil
}

// duplicateOf is the refund an unkeyed request repeats: one asked by the same
// kind of caller (origin) with the same reason and the same request (the same
// amount in fils, the same lines, or all that is left), still requested or
// already refunded (a card refund often succeeds before a timed-out client
// asks again), and asked less than DuplicateRefundWindow ago; nil when there
// is none. A failed refund refunded nothing: asking again is not a retry.
func (o *Order) duplicateOf(req RefundRequest, now int64) *Refund {
	for i := len(o.Refunds) - 1; i >= 0; i-- {
		r := &o.Refunds[i]
		if r.Status == RefundFailed || r.Origin != req.Origin || r.Reason != req.Reason || now-r.RequestedAt >= DuplicateRefundWindow {
			continue
		}
		switch {
		case len(req.Lines) > 0:
			if len(r.Lines) > 0 && sameQuantities(r.Lines, req.Lines) {
				return r
			}
		case req.Amount != nil:
			if len(r.Lines) == 0 && !r.AllLeft && r.Amount == *req.Amount {
				return r
			}
		case r.AllLeft:
			return r
		}
	}
	return nil
}

// sameQuantities reports whether two sets of lines ask the same quantity of
// each product, whatever their order.
func sameQuantities(a, b []RefundLine) bool {
	q := map[string]int{}
	for _, l := range a {
		q[l.ProductID] += l.Quantity
	}
	for _, l := range b {
		q[l.ProductID] -= l.Quantity
	}
	for _, n := range q {
		if n != 0 {
			return false
		}
	}
	return true
}

// RequestRefund reserves a refund on the order and returns it with its
// order.refund_requested event. The refund never exceeds what is left to
// refund (Refundable), whatever other refunds are reserved meanwhile: the
// caller saves the order under a condition that fails if it changed since it
// was read (storage.Orders.Update). Lines are priced as the order priced
// them; the delivery fee is refunded with the last of the order (all that is
// left, the last lines, or an explicit amount that includes it). An order
// paid in another currency than AED is refunded in full only. A request
// without an Idempotency-Key (Unkeyed) identical to a refund still requested
// and asked less than 10 minutes ago is a retry: refused refund_duplicate with
// the earlier refund's id.
func (o *Order) RequestRefund(req RefundRequest, now int64) (Refund, contract.RefundRequested, error) {
	var none contract.RefundRequested
	if err := o.mayRefund(req.Admin, now); err != nil {
		return Refund{}, none, err
	}
	if o.disputeOpen() {
		return Refund{}, none, refusal(ReasonDisputeOpen, "order %s's payment is disputed: it cannot be refunded until the dispute is closed", o.ID)
	}
	if req.Unkeyed {
		if d := o.duplicateOf(req, now); d != nil {
			state := "still waiting for the processor"
			if d.Status == RefundSucceeded {
				state = "already refunded"
			}
			return Refund{}, none, apperr.New(apperr.FailedPrecondition, "order %s has an identical refund, %s of %.2f %s asked %d s ago, %s: "+
				"this call is taken for a retry and refunds nothing; to ask for another identical refund, send an Idempotency-Key "+
				"(a new one for each refund)", o.ID, d.ID, o.major(d.Amount), strings.ToUpper(o.Currency()), (now-d.RequestedAt)/1000, state).
				WithDetails(map[string]any{"reason": ReasonRefundDuplicate, "refundId": d.ID, "requestedAt": d.RequestedAt})
		}
	}
	allLeft := req.Amount == nil && len(req.Lines) == 0 && (req.Admin || req.Origin == RefundByCancellation)
	if live := o.liveRefunds(); live >= MaxRefunds && !allLeft || len(o.Refunds) >= MaxRefundRecords {
		return Refund{}, none, refusal(ReasonTooManyRefunds, "order %s has %d refunds already, the most one order keeps; an administrator refunds all that is left", o.ID, live)
	}
	left := o.Refundable()
	if left <= 0 {
		return Refund{}, none, refusal(ReasonNothingToRefund, "order %s has nothing left to refund", o.ID).
			WithDetails(map[string]any{"reason": ReasonNothingToRefund, "refundableAmount": 0.0})
	}
	if o.Currency() != "aed" && (req.Amount != nil || len(req.Lines) > 0) {
		return Refund{}, none, apperr.New(apperr.InvalidArgument, "order %s was paid in %s: it is refunded in full only (omit amount and lines)", o.ID, o.Currency())
	}
	r := Refund{ID: req.ID, Reason: req.Reason, Origin: req.Origin, RequestedBy: req.By, Status: RefundRequested, RequestedAt: now}
	switch {
	case req.Amount != nil && len(req.Lines) > 0:
		return Refund{}, none, apperr.New(apperr.InvalidArgument, "give amount or lines, not both")
	case req.Amount != nil:
		r.Amount = *req.Amount
	case len(req.Lines) > 0:
		amount, all, err := o.priceLines(req.Lines)
		if err != nil {
			return Refund{}, none, err
		}
		r.Lines = append([]RefundLine(nil), req.Lines...)
		r.Amount = amount
		if all {
			// The lines complete the order: its delivery fee goes with them
			// (D2), never silently left behind. When refunds by amount or
			// lost disputes took part of the order, the lines and the fee
			// exceed what is left: refused, all that is left is the way.
			r.Amount, r.DeliveryFee = amount+o.DeliveryFee, o.DeliveryFee > 0
			if r.Amount > left {
				return Refund{}, none, refusal(ReasonRefundExceedsPayment, "order %s has %.2f AED left to refund; the lines asked complete the order, "+
					"so they are refunded with its %.2f AED delivery fee, %.2f AED in all: refund all that is left instead (omit amount and lines)",
					o.ID, left.AED(), o.DeliveryFee.AED(), r.Amount.AED()).
					WithDetails(map[string]any{"reason": ReasonRefundExceedsPayment, "refundableAmount": left.AED(), "linesAmount": amount.AED(),
						"deliveryFee": o.DeliveryFee.AED()})
			}
		}
	default:
		r.Amount, r.AllLeft = left, true
	}
	if r.Amount <= 0 {
		return Refund{}, none, apperr.New(apperr.InvalidArgument, "a refund's amount must be above 0").WithDetails(map[string]any{"field": "amount"})
	}
	if r.Amount > left {
		return Refund{}, none, apperr.New(apperr.FailedPrecondition, "order %s has %.2f AED left to refund, less than the %.2f AED asked", o.ID,
			left.AED(), r.Amount.AED()).WithDetails(map[string]any{"reason": ReasonRefundExceedsPayment, "refundableAmount": left.AED()})
	}
	o.Refunds = append(o.Refunds[:len(o.Refunds):len(o.Refunds)], r)
	o.UpdatedAt = now
	return r, contract.RefundRequested{RefundID: r.ID, OrderID: o.ID, StoreID: o.StoreID, CustomerID: o.CustomerID, PaymentIntentID: o.PaymentIntentID,
		Amount: r.Amount, Currency: o.Currency(), Full: r.Amount == left && o.Reserved() == r.Amount, Reason: r.Reason, Origin: r.Origin, RequestedBy: r.RequestedBy}, nil
}

// Settlement is what the processor said of a refund (through the payments
// service): Amount is what it refunded when it succeeded.
type Settlement struct {
	RefundID, ProcessorRefundID string
	Succeeded                   bool
	Amount                      money.Fils
	FailureReason               string
}

// SettleRefund records the processor's outcome of a refund once: a refund
// already settled is left as it is (nil events). A succeeded refund adds what
// the processor refunded to RefundedAmount (it may be less than reserved, never
// more than what is left); a failed one frees its reservation. A refund the
// marketplace did not ask (made at the processor) is recorded as succeeded
// with origin processor.
func (o *Order) SettleRefund(s Settlement, now int64) (*contract.OrderRefunded, *contract.RefundFailed) {
	i := -1
	for j := range o.Refunds {
		if o.Refunds[j].ID == s.RefundID {
			i = j
		}
	}
	if i < 0 {
		if !s.Succeeded || s.Amount <= 0 {
			return nil, nil
		}
		o.Refunds = append(o.Refunds[:len(o.Refunds):len(o.Refunds)], Refund{ID: s.RefundID, Amount: s.Amount, Reason: "refunded at the processor",
			Origin: RefundByProcessor, RequestedBy: "processor", Status: RefundRequested, RequestedAt: now})
		i = len(o.Refunds) - 1
	} else {
		o.Refunds = append([]Refund(nil), o.Refunds...) // the loaded order stays as it was
	}
	r := &o.Refunds[i]
	if r.Status != RefundRequested {
		return nil, nil
	}
	r.ProcessorRefundID, r.SettledAt, o.UpdatedAt = s.ProcessorRefundID, now, now
	if !s.Succeeded {
		r.Status, r.FailureReason = RefundFailed, s.FailureReason
		return nil, &contract.RefundFailed{RefundID: r.ID, OrderID: o.ID, StoreID: o.StoreID, StoreOwnerUserID: o.StoreOwnerUserID,
			CustomerUserID: o.CustomerUserID, Amount: r.Amount, Currency: o.Currency(), FailureReason: s.FailureReason, Origin: r.Origin, RequestedBy: r.RequestedBy}
	}
	r.Status = RefundSucceeded
	r.Amount = min(r.Amount, max(s.Amount, 0)) // what the processor refunded, never more than reserved
	o.RefundedAmount += r.Amount
	return &contract.OrderRefunded{RefundID: r.ID, OrderID: o.ID, StoreID: o.StoreID, StoreOwnerUserID: o.StoreOwnerUserID, CustomerUserID: o.CustomerUserID,
		PaymentIntentID: o.PaymentIntentID, Amount: r.Amount, RefundedAmount: o.RefundedAmount, Currency: o.Currency(), RefundStatus: o.RefundStatus(), Origin: r.Origin}, nil
}

// NoteDispute records a dispute of the order's payment as the payments
// service reports it; it reports whether anything changed (a closed dispute
// stays closed).
func (o *Order) NoteDispute(id string, amount money.Fils, currency, status string) bool {
	currency = strings.ToLower(currency)
	for i, d := range o.Disputes {
		if d.ID == id {
			if d.Status != contractDisputeOpen || d.Status == status {
				return false
			}
			o.Disputes = append([]OrderDispute(nil), o.Disputes...)
			o.Disputes[i].Status, o.Disputes[i].Amount, o.Disputes[i].Currency = status, amount, currency
			return true
		}
	}
	o.Disputes = append(o.Disputes[:len(o.Disputes):len(o.Disputes)], OrderDispute{ID: id, Amount: amount, Status: status, Currency: currency})
	return true
}

// RefundOnCancel reserves the refund of all that is left of a paid order
// being cancelled (by its customer, its store or an administrator, a held
// order included), with its event; nil when nothing is left to refund or its
// payment is disputed (the dispute's outcome decides the money then).
func (o *Order) RefundOnCancel(id, by string, now int64) *contract.RefundRequested {
	if o.Paid() <= 0 || o.Refundable() <= 0 || o.disputeOpen() {
		return nil
	}
	_, ev, err := o.RequestRefund(RefundRequest{ID: id, Reason: "order cancelled", Origin: RefundByCancellation, By: by, Admin: true}, now)
	if err != nil {
		return nil
	}
	return &ev
}

// RefundView is a refund as clients see it (AED, or the payment currency's
// major unit for an order paid in another).
type RefundView struct {
	ID            string       `json:"refundId"`
	Amount        float64      `json:"amount"`
	Lines         []RefundLine `json:"lines,omitempty"`
	Reason        string       `json:"reason"`
	Origin        string       `json:"origin" enum:"admin|store|cancellation|processor"`
	Status        string       `json:"status" enum:"requested|succeeded|failed"`
	FailureReason string       `json:"failureReason,omitempty"`
	RequestedAt   int64        `json:"requestedAt"`
	SettledAt     int64        `json:"settledAt,omitempty"`
}

func (o *Order) major(f money.Fils) float64 { return money.Major(int64(f), o.Currency()) }

func (o *Order) refundViews() []RefundView {
	out := make([]RefundView, len(o.Refunds))
	for i, r := range o.Refunds {
		out[i] = RefundView{ID: r.ID, Amount: o.major(r.Amount), Lines: r.Lines, Reason: r.Reason, Origin: r.Origin, Status: r.Status,
			FailureReason: r.FailureReason, RequestedAt: r.RequestedAt, SettledAt: r.SettledAt}
	}
	return out
}

// refundFacts are the order's refunds for OrderFacts.
func (o *Order) refundFacts() []contract.RefundFact {
	out := make([]contract.RefundFact, len(o.Refunds))
	for i, r := range o.Refunds {
		out[i] = contract.RefundFact{RefundID: r.ID, Amount: r.Amount, Status: r.Status, SettledAt: r.SettledAt}
	}
	return out
}

// CancelByCustomer checks that the order's customer may cancel it: before the
// store prepares it (pending or confirmed), and not while the platform holds
// its payment (an administrator settles that).
func (o *Order) CancelByCustomer() error {
	if o.Held() {
		return apperr.New(apperr.FailedPrecondition, "order %s's payment is under review by the platform; an administrator settles it", o.ID)
	}
	if o.Status != StatusPending && o.Status != StatusConfirmed {
		return apperr.New(apperr.FailedPrecondition, "order %s is %s: a customer cancels an order before the store prepares it", o.ID, o.Status).
			WithDetails(map[string]any{"reason": ReasonStatusNotAllowed, "current": o.Status, "requested": StatusCancelled})
	}
	return nil
}

// AddToTotals adds the order's money to the platform's totals (orders paid
// in AED only; others are counted apart, with the AED total of the
// delivered ones, which their store was credited from, less the AED
// counterpart of what their refunds and lost disputes took back).
func (o *Order) AddToTotals(t *contract.MoneyTotals) {
	if o.Currency() != "aed" {
		t.OtherCurrencyOrders++
		if o.Status == StatusDelivered {
			t.OtherCurrencyDelivered += o.Total - aedCounterpart(o.Total, o.Paid(), o.RefundedAmount+o.LostDisputes())
		}
		return
	}
	t.Orders++
	paid, lost := o.Paid(), o.LostDisputes()
	t.Captured += paid
	t.Refunded += o.RefundedAmount
	t.DisputesLost += lost
	if o.Status != StatusDelivered {
		t.NotDelivered += paid - o.RefundedAmount - lost
		return
	}
	t.Delivered++
	t.PaymentDifferences += paid - o.Total
	t.DeliveredStoreEarnings += o.StoreEarnings
	t.DeliveredCommission += o.PlatformCommission
}

// aedCounterpart is the AED counterpart of r (minor units of the payment's
// currency) of an order paid paid in another currency for an AED total:
// (total × r + paid/2) / paid, rounded once on the cumulative amount, as
// the payouts service reverses refunds and lost disputes of such an order
// (docs/adr/0153): all that was paid is the whole total.
func aedCounterpart(total, paid, r money.Fils) money.Fils {
	if paid <= 0 {
		return 0
	}
	return (total*r + paid/2) / paid
}
