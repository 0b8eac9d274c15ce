package domain

import "marketplace/libs/money"

// The platform's reconciliation (docs/adr/0151): every fils captured from
// customers and not given back is somewhere the platform can name.
//
//	captured − refunded − disputesLost + otherCurrencyDelivered =
//	    notDelivered + paymentDifferences − excess + commissionKept
//	    + storeBalances + openPayouts + paidOut + payoutFees + failedKept
//	    + disputeFeesCharged − adjustmentsNet
//
// The first five terms are the customers service's (getMoneyTotals), the
// others this service's own records. It holds at quiescence: when every
// event has been consumed (a refund the processor confirmed is in refunded
// before payouts has reversed its share).

// CustomerTotals are the customers service's sums over the orders paid in
// AED (customers.MoneyTotals), in fils.
type CustomerTotals struct {
	Captured, Refunded, DisputesLost money.Fils
	// NotDelivered: paid − refunded − lost of the orders not delivered (no
	// store was credited for them).
	NotDelivered money.Fils
	// PaymentDifferences: paid − total of the delivered orders (a held
	// payment an administrator accepted).
	PaymentDifferences money.Fils
	// OtherCurrencyDelivered: the AED total of the delivered orders paid in
	// another currency (an administrator accepted the payment as worth it;
	// their store was credited in AED, their commission kept), less the AED
	// counterpart of what refunds and lost disputes of them reversed
	// (docs/adr/0153).
	OtherCurrencyDelivered money.Fils
}

// PlatformTerms are the terms of the platform's equation, in fils.
type PlatformTerms struct {
	CustomerTotals
	// Excess is what refunds and lost disputes took beyond what was left of
	// a credited order's total (AppliedRefund.Excess; a lost dispute's
	// amount less its store share and commission): it came out of the
	// payment difference, no one's share.
	Excess money.Fils
	// CommissionKept is Σ platformCommission − commissionReversed of the
	// credited orders.
	CommissionKept money.Fils
	// StoreBalances is Σ available + pending + disputed of every wallet
	// (debts negative).
	StoreBalances money.Fils
	// OpenPayouts is Σ requestedAmount of the requested, approved and
	// processing payouts (out of available, not paid yet).
	OpenPayouts money.Fils
	// PaidOut and PayoutFees are Σ netAmount and Σ processingFee of the
	// completed payouts.
	PaidOut, PayoutFees money.Fils
	// FailedKept is Σ requestedAmount of the failed payouts whose amount
	// was not restored to the wallet.
	FailedKept money.Fils
	// DisputeFeesCharged is Σ of the lost disputes' fees charged to stores
	// (dispute_fee transactions).
	DisputeFeesCharged money.Fils
	// AdjustmentsNet is what administrators added to wallets by hand: bonus
	// + pending_credit − penalty − pending_debit (a move from pending to
	// available adds nothing).
	AdjustmentsNet money.Fils
	// DisputeFeesBorneByPlatform is listed outside the equation: the fees of
	// lost disputes the platform paid the processor from its own money.
	DisputeFeesBorneByPlatform money.Fils
}

// AddOrder counts an order's money state: only a credited order (its
// earning is in a wallet) counts; an order not credited is the customers
// service's notDelivered.
func (t *PlatformTerms) AddOrder(o *OrderMoney) {
	if !o.Credited {
		return
	}
	t.CommissionKept += o.PlatformCommission - o.CommissionReversed
	for _, r := range o.Refunds {
		t.Excess += r.Excess
	}
	for _, d := range o.Disputes {
		if d.Status == DisputeLost {
			amount := d.Amount
			if o.OtherCurrency() { // reversed in AED (docs/adr/0153)
				amount = d.AED
			}
			t.Excess += amount - d.Store - d.Commission
		}
	}
}

// AddWallet counts a wallet's balances.
func (t *PlatformTerms) AddWallet(w *Wallet) { t.StoreBalances += w.Balances().Sum() }

// AddPayout counts a payout by its status.
func (t *PlatformTerms) AddPayout(p *Payout) {
	switch p.Status {
	case StatusRequested, StatusApproved, StatusProcessing:
		t.OpenPayouts += p.RequestedAmount
	case StatusCompleted:
		t.PaidOut += p.NetAmount
		t.PayoutFees += p.ProcessingFee
	case StatusFailed:
		if !p.BalanceRestored {
			t.FailedKept += p.RequestedAmount
		}
	}
}

// PlatformTxTypes are the wallet transactions the equation reads
// (AddTransaction): the manual adjustments and the dispute fees.
var PlatformTxTypes = []string{TxBonus, TxPenalty, TxPendingCredit, TxPendingDebit, TxDisputeFee}

// AddTransaction counts an adjustment (by its change of the wallet's
// balances: Effect) or a dispute fee charged to a store; other types are
// counted elsewhere.
func (t *PlatformTerms) AddTransaction(tx *Transaction) {
	switch tx.Type {
	case TxBonus, TxPenalty, TxPendingCredit, TxPendingDebit:
		t.AdjustmentsNet += Effect(tx.Type, tx.Status, tx.Amount).Sum()
	case TxDisputeFee:
		t.DisputeFeesCharged -= Effect(tx.Type, tx.Status, tx.Amount).Sum()
	}
}

// AddPlatformFee counts a dispute fee the platform bore.
func (t *PlatformTerms) AddPlatformFee(f *PlatformFee) { t.DisputeFeesBorneByPlatform += f.Amount }

// Left is captured − refunded − disputesLost + otherCurrencyDelivered: what
// customers paid and kept paid, in AED.
func (t PlatformTerms) Left() money.Fils {
	return t.Captured - t.Refunded - t.DisputesLost + t.OtherCurrencyDelivered
}

// Right is where that money is.
func (t PlatformTerms) Right() money.Fils {
	return t.NotDelivered + t.PaymentDifferences - t.Excess + t.CommissionKept + t.StoreBalances + t.OpenPayouts + t.PaidOut +
		t.PayoutFees + t.FailedKept + t.DisputeFeesCharged - t.AdjustmentsNet
}

// Difference is Left − Right: 0 when the platform balances; positive, money
// captured that no term holds; negative, more held than captured.
func (t PlatformTerms) Difference() money.Fils { return t.Left() - t.Right() }

// Named are the terms by their names in the answer (fils), the equation's
// order.
func (t PlatformTerms) Named() []NamedTerm {
	return []NamedTerm{
		{"captured", t.Captured}, {"refunded", t.Refunded}, {"disputesLost", t.DisputesLost}, {"otherCurrencyDelivered", t.OtherCurrencyDelivered},
		{"notDelivered", t.NotDelivered}, {"paymentDifferences", t.PaymentDifferences}, {"excess", t.Excess},
		{"commissionKept", t.CommissionKept}, {"storeBalances", t.StoreBalances}, {"openPayouts", t.OpenPayouts},
		{"paidOut", t.PaidOut}, {"payoutFees", t.PayoutFees}, {"failedKept", t.FailedKept},
		{"disputeFeesCharged", t.DisputeFeesCharged}, {"adjustmentsNet", t.AdjustmentsNet},
		{"disputeFeesBorneByPlatform", t.DisputeFeesBorneByPlatform},
	}
}

// NamedTerm is one term of the equation.
type NamedTerm struct {
	Name string
	Fils money.Fils
}

// PlatformEquation is the equation as the answer states it.
const PlatformEquation = "captured − refunded − disputesLost + otherCurrencyDelivered = notDelivered + paymentDifferences − excess + commissionKept + storeBalances + openPayouts + paidOut + payoutFees + failedKept + disputeFeesCharged − adjustmentsNet (disputeFeesBorneByPlatform listed, outside the sum)"
