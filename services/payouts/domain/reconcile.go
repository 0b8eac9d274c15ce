package domain

import (
	"fmt"
	"slices"
	"strings"

	"marketplace/libs/money"
)

// Recomputed is a wallet as its ledger says it must be.
type Recomputed struct {
	Balances
	Earnings money.Fils
	Orders   int64
	Payouts  money.Fils
}

// Reconcile recomputes the wallet w (the zero wallet when not open) from its
// ledger: balances from the transactions (Effect) and the journal's moves,
// total earnings and orders from the earnings, total payouts from the
// completed payouts; and lists every inconsistency (none: the ledger equals
// the balances), those of the sums first, then what the sums cannot show
// (checkLedger, sorted).
func Reconcile(w *Wallet, txs []Transaction, moves []Adjustment, ps []Payout) (Recomputed, []string) {
	entries := make([]Entry, len(txs))
	var r Recomputed
	for i, t := range txs {
		entries[i] = Entry{Type: t.Type, Status: t.Status, Amount: t.Amount}
		if t.Type == TxEarning {
			r.Earnings += t.Amount
			r.Orders++
		}
	}
	amounts := make([]money.Fils, len(moves))
	for i, m := range moves {
		amounts[i] = m.Amount
	}
	for _, p := range ps {
		if p.Status == StatusCompleted {
			r.Payouts += p.RequestedAmount
		}
	}
	r.Balances = Recompute(entries, amounts)
	b := r.Balances
	var bad []string
	if b != w.Balances() {
		bad = append(bad, fmt.Sprintf("balances: stored %.2f available, %.2f pending, %.2f disputed; the ledger makes %.2f, %.2f, %.2f",
			w.AvailableBalance.AED(), w.PendingBalance.AED(), w.DisputedBalance.AED(), b.Available.AED(), b.Pending.AED(), b.Disputed.AED()))
	}
	if r.Earnings != w.TotalEarnings || r.Orders != w.TotalOrders {
		bad = append(bad, fmt.Sprintf("earnings: stored %.2f over %d orders; the ledger makes %.2f over %d",
			w.TotalEarnings.AED(), w.TotalOrders, r.Earnings.AED(), r.Orders))
	}
	if r.Payouts != w.TotalPayouts {
		bad = append(bad, fmt.Sprintf("totalPayouts: stored %.2f; the completed payouts make %.2f", w.TotalPayouts.AED(), r.Payouts.AED()))
	}
	bad = append(bad, checkLedger(w.Balances(), b, txs, moves, ps)...)
	return r, bad
}

// payoutTxStatuses are the statuses a payout's transaction may have with the
// payout in status (balanceRestored for a failed one): cancelled with a
// rejection, failed with a failure that restored the balance, pending while
// requested, completed once approved (and after a failure that kept the money
// out, which can only follow an approval).
func payoutTxStatuses(status string, restored bool) []string {
	switch status {
	case StatusRequested:
		return []string{TxPending}
	case StatusCancelled:
		return []string{TxCancelled}
	case StatusFailed:
		if restored {
			return []string{TxFailed}
		}
		return []string{TxPending, TxCompleted}
	}
	return []string{TxCompleted}
}

// checkLedger finds what the sums cannot: see Reconcile. stored and
// ledger are the balances as stored and as recomputed.
func checkLedger(stored, ledger Balances, txs []Transaction, moves []Adjustment, ps []Payout) []string {
	var bad []string
	// Available may be negative (a debt, docs/adr/0147); pending and
	// disputed never.
	if !stored.Valid() {
		bad = append(bad, fmt.Sprintf("a stored balance is negative: %.2f pending, %.2f disputed", stored.Pending.AED(), stored.Disputed.AED()))
	}
	if !ledger.Valid() {
		bad = append(bad, fmt.Sprintf("the ledger makes a balance negative: %.2f pending, %.2f disputed", ledger.Pending.AED(), ledger.Disputed.AED()))
	}
	// Payouts and their transactions.
	byPayout := map[string][]Transaction{}
	for _, t := range txs {
		if t.Type == TxPayout {
			byPayout[t.Metadata["payoutId"]] = append(byPayout[t.Metadata["payoutId"]], t)
		}
	}
	for _, p := range ps {
		ts := byPayout[p.ID]
		delete(byPayout, p.ID)
		if len(ts) != 1 {
			bad = append(bad, fmt.Sprintf("payout %s has %d payout transactions (needs exactly one)", p.ID, len(ts)))
			continue
		}
		t := ts[0]
		if t.ID != p.TransactionID {
			bad = append(bad, fmt.Sprintf("payout %s names transaction %s, its transaction is %s", p.ID, p.TransactionID, t.ID))
		}
		if t.Amount != p.RequestedAmount {
			bad = append(bad, fmt.Sprintf("payout %s requested %.2f, its transaction %s is of %.2f", p.ID, p.RequestedAmount.AED(), t.ID, t.Amount.AED()))
		}
		if want := payoutTxStatuses(p.Status, p.BalanceRestored); !slices.Contains(want, t.Status) {
			bad = append(bad, fmt.Sprintf("payout %s is %s (balance restored: %t), its transaction %s is %s (needs %s)",
				p.ID, p.Status, p.BalanceRestored, t.ID, t.Status, strings.Join(want, " or ")))
		}
	}
	for id, ts := range byPayout {
		for _, t := range ts {
			bad = append(bad, fmt.Sprintf("payout transaction %s names payout %q, which this store does not have", t.ID, id))
		}
	}
	// Earnings: amount = held + taken + released.
	released := map[string]money.Fils{}
	adjusted := map[string]money.Fils{} // what each pending-lowering adjustment may take
	for _, t := range txs {
		switch t.Type {
		case TxRelease:
			released[t.Metadata["earningId"]] += t.Amount
		case TxPendingDebit:
			adjusted[t.Metadata["adjustmentId"]] += t.Amount
		case TxRefundHeld, TxDisputeHoldHeld:
			// a refund's or a dispute's take from the order's held earning
			adjusted[t.Metadata["takeId"]] += t.Amount
		}
	}
	for _, m := range moves {
		adjusted[m.ID] += m.Amount
	}
	var held money.Fils
	taken := map[string]money.Fils{}
	for _, e := range txs {
		if e.Type != TxEarning {
			continue
		}
		var took money.Fils
		for _, h := range e.HeldTaken {
			took += h.Amount
			taken[h.AdjustmentID] += h.Amount
		}
		rel := released[e.ID]
		delete(released, e.ID)
		switch {
		case e.HeldRemaining < 0 || e.HeldRemaining > e.Amount:
			bad = append(bad, fmt.Sprintf("earning %s holds %.2f of its %.2f", e.ID, e.HeldRemaining.AED(), e.Amount.AED()))
		case e.HeldRemaining+took+rel != e.Amount:
			bad = append(bad, fmt.Sprintf("earning %s of %.2f: %.2f held, %.2f taken by adjustments, %.2f released do not add up",
				e.ID, e.Amount.AED(), e.HeldRemaining.AED(), took.AED(), rel.AED()))
		}
		switch e.Status {
		case TxPending:
			held += e.HeldRemaining
			if rel != 0 {
				bad = append(bad, fmt.Sprintf("earning %s is still held but was released", e.ID))
			}
		case TxCompleted:
			if e.HeldRemaining != 0 {
				bad = append(bad, fmt.Sprintf("earning %s was released but still holds %.2f", e.ID, e.HeldRemaining.AED()))
			}
		}
	}
	for id, amount := range released {
		bad = append(bad, fmt.Sprintf("a release of %.2f names earning %q, which this wallet does not have", amount.AED(), id))
	}
	if held > stored.Pending {
		bad = append(bad, fmt.Sprintf("the held earnings hold %.2f, more than the pending balance %.2f", held.AED(), stored.Pending.AED()))
	}
	for id, amount := range taken {
		if amount > adjusted[id] {
			bad = append(bad, fmt.Sprintf("adjustment %s took %.2f from held earnings, more than its %.2f", id, amount.AED(), adjusted[id].AED()))
		}
	}
	slices.Sort(bad)
	return bad
}
