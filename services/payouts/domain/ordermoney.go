package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"marketplace/libs/money"
)

// The money after the order (docs/adr/0147): what refunds and disputes do to
// the store's wallet, order by order.

// CommissionCum is the platform commission of the first r fils reversed of
// an order of total fils whose commission is commission (decision D1 of
// issue 31: the commission, fixed fee included, is reversed in proportion,
// cumulatively, rounded half up once on the cumulative amount):
// (commission × r + total/2) / total. CommissionCum(total) is the whole
// commission, so reversals of any sizes in any order sum to it exactly.
func CommissionCum(total, commission, r money.Fils) money.Fils {
	if total <= 0 {
		return 0
	}
	return (commission*r + total/2) / total
}

// Split is how a reversal of amount of an order (total, commission) already
// reversed by before divides: the platform's commission part,
// CommissionCum(before+amount) − CommissionCum(before), and the store's
// share, the rest.
func Split(total, commission, before, amount money.Fils) (store, platform money.Fils) {
	platform = CommissionCum(total, commission, before+amount) - CommissionCum(total, commission, before)
	return amount - platform, platform
}

// AEDCum is the AED counterpart of the first r (minor units of the payment's
// currency) reversed of an order paid paid in another currency for an AED
// total of total fils (docs/adr/0153): (total × r + paid/2) / paid, rounded
// half up once on the cumulative amount, so AEDCum(paid) is the whole total
// and reversals of any sizes in any order sum to it exactly.
func AEDCum(total, paid, r money.Fils) money.Fils {
	if paid <= 0 {
		return 0
	}
	return (total*r + paid/2) / paid
}

// Dispute statuses on an order (OrderDispute.Status).
const (
	DisputeOpen = "open"
	DisputeWon  = "won"
	DisputeLost = "lost"
)

// AppliedRefund is one refund applied to an order's money.
type AppliedRefund struct {
	ID     string     `bson:"id"`
	Amount money.Fils `bson:"amount"`
	// AED is, for an order paid in another currency, the AED counterpart
	// of Amount (which is in that currency's minor units), what was
	// reversed.
	AED        money.Fils `bson:"aed,omitempty"`
	Store      money.Fils `bson:"store"`
	Commission money.Fils `bson:"commission"`
	// Excess is what of the refund exceeded what was left of the order's
	// total (a payment difference of a held order): no one's share.
	Excess money.Fils `bson:"excess,omitempty"`
	// BeforeCredit: the order was not credited yet; the store's share lowered
	// its credit instead of leaving the wallet.
	BeforeCredit bool  `bson:"beforeCredit,omitempty"`
	At           int64 `bson:"at"`
}

// OrderDispute is one dispute of an order's payment. Held is the store's
// share held in the disputed balance (0 until the order is credited:
// nothing of it is in the wallet yet), FromHeld what of it came from the
// order's held earning (pending; the rest came from available); Fee and
// FeeChargedTo are the settings frozen when it was lost.
type OrderDispute struct {
	ID           string     `bson:"id"`
	Amount       money.Fils `bson:"amount"`
	Status       string     `bson:"status"`
	Held         money.Fils `bson:"held"`
	FromHeld     money.Fils `bson:"fromHeld,omitempty"`
	HeldApplied  bool       `bson:"heldApplied"`
	AED          money.Fils `bson:"aed,omitempty"`        // lost, an order paid in another currency: Amount's AED counterpart
	Store        money.Fils `bson:"store,omitempty"`      // lost: the store's share reversed
	Commission   money.Fils `bson:"commission,omitempty"` // lost: the commission reversed
	Fee          money.Fils `bson:"fee,omitempty"`
	FeeChargedTo string     `bson:"feeChargedTo,omitempty"`
	OpenedAt     int64      `bson:"openedAt"`
	ClosedAt     int64      `bson:"closedAt,omitempty"`
}

// OrderMoney is what the payouts service has moved on one order (record
// kind orderMoney, id: the order's): the order's figures as the customers
// service confirmed them, whether its earning was credited, what was
// reversed so far (R: refunds and lost disputes) and of it the commission,
// every refund and dispute applied. Each refund or dispute is applied once
// (its id is recorded), in any order, and the D1 split makes the reversals
// sum exactly to the commission and the earnings.
type OrderMoney struct {
	ID                 string     `bson:"_id"`
	StoreID            string     `bson:"storeId"`
	Total              money.Fils `bson:"total"`
	PlatformCommission money.Fils `bson:"platformCommission"`
	StoreEarnings      money.Fils `bson:"storeEarnings"`
	Credited           bool       `bson:"credited"`
	EarningID          string     `bson:"earningId,omitempty"`
	Reversed           money.Fils `bson:"reversed"`
	CommissionReversed money.Fils `bson:"commissionReversed"`
	// StoreBeforeCredit is the store's share of what was reversed before
	// the order was credited: its credit is StoreEarnings less it.
	StoreBeforeCredit money.Fils `bson:"storeBeforeCredit"`
	// An order paid in another currency than AED (docs/adr/0153): its
	// Currency, AmountPaid in it (minor units) and of it ReversedPaid by
	// refunds and lost disputes, whose amounts are in that currency. Each
	// is reversed in AED as AEDCum(ReversedPaid+a) − AEDCum(ReversedPaid).
	Currency     string          `bson:"currency,omitempty"`
	AmountPaid   money.Fils      `bson:"amountPaid,omitempty"`
	ReversedPaid money.Fils      `bson:"reversedPaid,omitempty"`
	Refunds      []AppliedRefund `bson:"refunds"`
	Disputes     []OrderDispute  `bson:"disputes"`
	Version      int64           `bson:"version"`
	UpdatedAt    int64           `bson:"updatedAt"`
}

// ErrApplied is the answer for a refund or dispute move already applied: a
// redelivered event, a no-op.
var ErrApplied = errors.New("payouts: already applied")

// Terms are an order's figures as confirmed: Currency and AmountPaid (its
// minor units) are the payment's ("" or aed: AED).
type Terms struct {
	StoreID                                  string
	Total, PlatformCommission, StoreEarnings money.Fils
	Currency                                 string
	AmountPaid                               money.Fils
}

// OtherCurrency reports whether the terms' payment was in another currency
// than AED.
func (t Terms) OtherCurrency() bool { return t.Currency != "" && !strings.EqualFold(t.Currency, "aed") }

// NewOrderMoney is the money state of an order nothing was moved on yet.
func NewOrderMoney(orderID string, t Terms) *OrderMoney {
	o := &OrderMoney{ID: orderID, StoreID: t.StoreID, Total: t.Total, PlatformCommission: t.PlatformCommission, StoreEarnings: t.StoreEarnings}
	o.Adopt(t)
	return o
}

// Adopt records the terms' payment currency on an order paid in another
// currency whose record does not say so yet (one made at its credit by an
// older version, which did not record it), while nothing of it was
// reversed in that currency; it reports whether it changed o.
func (o *OrderMoney) Adopt(t Terms) bool {
	if !t.OtherCurrency() || o.OtherCurrency() || t.AmountPaid <= 0 || o.ReversedPaid != 0 {
		return false
	}
	o.Currency, o.AmountPaid = strings.ToLower(t.Currency), t.AmountPaid
	return true
}

// OtherCurrency reports whether the order was paid in another currency than
// AED: its refunds' and disputes' amounts are in that currency.
func (o *OrderMoney) OtherCurrency() bool {
	return o.Currency != "" && o.Currency != "aed" && o.AmountPaid > 0
}

// inAED is the AED counterpart of amount, in the order's payment currency,
// reversed after what was (peek: not counted), or amount itself for an
// order paid in AED.
func (o *OrderMoney) inAED(amount money.Fils) money.Fils {
	if !o.OtherCurrency() {
		return amount
	}
	return AEDCum(o.Total, o.AmountPaid, o.ReversedPaid+amount) - AEDCum(o.Total, o.AmountPaid, o.ReversedPaid)
}

// countAED counts amount (the payment's currency) as reversed and returns
// its AED counterpart (inAED).
func (o *OrderMoney) countAED(amount money.Fils) money.Fils {
	a := o.inAED(amount)
	if o.OtherCurrency() {
		o.ReversedPaid += amount
	}
	return a
}

// Credit is what the order's earning credits: its store earnings less the
// store's share of what was reversed before (a refund of an order not
// delivered yet), never below zero.
func (o *OrderMoney) Credit() money.Fils { return max(o.StoreEarnings-o.StoreBeforeCredit, 0) }

// MarkCredited records that the order's earning (earningID) was credited.
func (o *OrderMoney) MarkCredited(earningID string) { o.Credited, o.EarningID = true, earningID }

// left is what of the order may still be reversed.
func (o *OrderMoney) left() money.Fils { return o.Total - o.Reversed }

// reverse counts a reversal of amount in R with its D1 split. What exceeds
// what is left of the order's total (a held order paid more than its total:
// the payment difference, never the store's) is not reversed: excess.
func (o *OrderMoney) reverse(amount money.Fils) (store, commission, excess money.Fils, err error) {
	if amount <= 0 {
		return 0, 0, 0, fmt.Errorf("payouts: order %s: a reversal of %s AED", o.ID, AEDText(amount))
	}
	a := min(amount, o.left())
	store, commission = Split(o.Total, o.PlatformCommission, o.Reversed, a)
	o.Reversed += a
	o.CommissionReversed += commission
	return store, commission, amount - a, nil
}

// ApplyRefund counts the refund id of amount (ErrApplied when it was
// already): its store share and commission (D1). For an order paid in
// another currency amount is in that currency, reversed as its AED
// counterpart (AppliedRefund.AED). Before the order is
// credited the share lowers the credit (StoreBeforeCredit) and nothing
// leaves the wallet (BeforeCredit); after, the caller takes the share from
// the held earning first, the rest from available.
func (o *OrderMoney) ApplyRefund(id string, amount money.Fils, now int64) (AppliedRefund, error) {
	if slices.ContainsFunc(o.Refunds, func(r AppliedRefund) bool { return r.ID == id }) {
		return AppliedRefund{}, ErrApplied
	}
	if amount <= 0 {
		return AppliedRefund{}, fmt.Errorf("payouts: order %s: a refund of %d", o.ID, amount)
	}
	r := AppliedRefund{ID: id, Amount: amount, BeforeCredit: !o.Credited, At: now}
	a := o.countAED(amount)
	if o.OtherCurrency() {
		r.AED = a
	}
	if a > 0 { // (an order paid in another currency: a refund too small to be a fils in AED reverses nothing)
		var err error
		if r.Store, r.Commission, r.Excess, err = o.reverse(a); err != nil {
			return AppliedRefund{}, err
		}
	}
	store := r.Store
	if !o.Credited {
		o.StoreBeforeCredit += store
	}
	o.Refunds = append(o.Refunds, r)
	o.UpdatedAt = now
	return r, nil
}

// Dispute is the dispute id of the order, nil when not recorded.
func (o *OrderMoney) Dispute(id string) *OrderDispute {
	for i := range o.Disputes {
		if o.Disputes[i].ID == id {
			return &o.Disputes[i]
		}
	}
	return nil
}

// OpenDispute records the dispute id of amount (ErrApplied when recorded
// already) and returns the store's share to hold: the D1 split of amount
// given what was reversed so far (of its AED counterpart, for an order paid
// in another currency). Before the order is credited nothing is held (the
// share is held when the earning is credited: HoldOnCredit).
func (o *OrderMoney) OpenDispute(id string, amount money.Fils, now int64) (*OrderDispute, error) {
	if o.Dispute(id) != nil {
		return nil, ErrApplied
	}
	if amount <= 0 {
		return nil, fmt.Errorf("payouts: order %s: a dispute of %s AED", o.ID, AEDText(amount))
	}
	share, _ := Split(o.Total, o.PlatformCommission, o.Reversed, min(o.inAED(amount), o.left()))
	d := OrderDispute{ID: id, Amount: amount, Status: DisputeOpen, OpenedAt: now}
	if o.Credited {
		d.Held, d.HeldApplied = share, true
	}
	o.Disputes = append(o.Disputes, d)
	o.UpdatedAt = now
	return &o.Disputes[len(o.Disputes)-1], nil
}

// HoldOnCredit is, for each dispute still open whose share was not held (it
// opened before the order was credited), the share to hold now; they are
// marked held.
func (o *OrderMoney) HoldOnCredit(now int64) []*OrderDispute {
	var out []*OrderDispute
	for i := range o.Disputes {
		d := &o.Disputes[i]
		if d.Status != DisputeOpen || d.HeldApplied {
			continue
		}
		d.Held, _ = Split(o.Total, o.PlatformCommission, o.Reversed, min(o.inAED(d.Amount), o.left()))
		d.HeldApplied = true
		out = append(out, d)
		o.UpdatedAt = now
	}
	return out
}

// Closing is what closing a dispute does: Release (won) or Return (lost:
// the share is below what was held) goes back from disputed, of it FromHeld
// (what the hold took from the order's held earning, at most that amount)
// to that earning if it is still held and not yet due, the rest to
// available; Loss leaves disputed; Extra (lost: the store's share now
// exceeds what was held, which only reversals between the opening and the
// close can make) leaves available; Fee is the frozen fee, ChargedTo who
// bears it.
type Closing struct {
	Release, FromHeld   money.Fils
	Loss, Extra, Return money.Fils
	Commission, Store   money.Fils
	Fee                 money.Fils
	ChargedTo           string
}

// CloseDispute closes the dispute id won or lost (ErrApplied when it is
// closed already). Won, its held share is released: what the hold took from
// the order's held earning back to it (Closing.FromHeld), the rest to
// available. Lost, its
// amount counts as reversed (D1: the commission is reversed too), its held
// share leaves the disputed balance (what was held beyond the store's share,
// Closing.Return, goes back as a won dispute's does), and the fee of the settings is frozen
// on it. A dispute lost before the order was credited lowers the credit, as
// a refund does.
func (o *OrderMoney) CloseDispute(id, outcome string, fee money.Fils, chargedTo string, now int64) (Closing, error) {
	d := o.Dispute(id)
	if d == nil {
		return Closing{}, fmt.Errorf("payouts: order %s has no dispute %s", o.ID, id)
	}
	if d.Status != DisputeOpen {
		return Closing{}, ErrApplied
	}
	var c Closing
	d.ClosedAt, o.UpdatedAt = now, now
	switch outcome {
	case DisputeWon:
		d.Status = DisputeWon
		c.Release, c.FromHeld = d.Held, min(d.FromHeld, d.Held)
		return c, nil
	case DisputeLost:
	default:
		return Closing{}, fmt.Errorf("payouts: dispute %s: outcome %q", id, outcome)
	}
	var store, commission money.Fils
	a := o.countAED(d.Amount)
	if o.OtherCurrency() {
		d.AED = a
	}
	if a > 0 {
		var err error
		if store, commission, _, err = o.reverse(a); err != nil {
			return Closing{}, err
		}
	}
	d.Status, d.Store, d.Commission = DisputeLost, store, commission
	d.Fee, d.FeeChargedTo = fee, chargedTo
	c.Store, c.Commission, c.Fee, c.ChargedTo = store, commission, fee, chargedTo
	if !o.Credited {
		o.StoreBeforeCredit += store
		return c, nil
	}
	c.Loss = min(store, d.Held)
	c.Return, c.Extra = d.Held-c.Loss, store-c.Loss
	c.FromHeld = min(d.FromHeld, c.Return)
	return c, nil
}

// NewMoveTx is a wallet transaction of the money after the order: of type
// typ (refund_held, refund, dispute_*), amount (> 0), recorded once per
// sourceKey, with its signed change of the balances (Delta).
func NewMoveTx(id, typ, storeID string, amount money.Fils, sourceKey, description string, meta map[string]string, now int64) *Transaction {
	d := Effect(typ, TxCompleted, amount)
	return &Transaction{ID: id, WalletID: WalletIDOf(storeID), StoreID: storeID, Type: typ, Amount: amount, Status: TxCompleted,
		Description: description, Metadata: meta, SourceKey: sourceKey, Delta: &d, CreatedAt: now, UpdatedAt: now}
}
