package domain

import (
	"fmt"

	"marketplace/libs/money"
)

// The statement journal (docs/adr/0147): one entry per change of a wallet's
// balances, releases and moves between balances included, written in the
// change's transaction. Its running balance is the wallet's balances after
// each change, so it equals the wallet by construction. It is a record of
// its own: listTransactions keeps the interface's behaviour (a move from
// pending to available records no wallet transaction).

// Statement entry kinds: the adjustment kinds (add_balance, ...) besides.
const (
	KindEarning        = "earning"
	KindRelease        = "release"
	KindPayoutRequest  = "payout_request"
	KindPayoutReturned = "payout_returned"
	KindRefund         = "refund"
	KindDisputeHold    = "dispute_hold"
	KindDisputeRelease = "dispute_release"
	KindDisputeLoss    = "dispute_loss"
	KindDisputeFee     = "dispute_fee"
	KindCarried        = "carried_forward"
	KindUnrecorded     = "unrecorded_change" // a change made without an entry (an older version, during an upgrade)
)

// StatementRefs are what an entry refers to.
type StatementRefs struct {
	TransactionID string `bson:"transactionId,omitempty" json:"transactionId,omitempty"`
	AdjustmentID  string `bson:"adjustmentId,omitempty" json:"adjustmentId,omitempty"`
	PayoutID      string `bson:"payoutId,omitempty" json:"payoutId,omitempty"`
	OrderID       string `bson:"orderId,omitempty" json:"orderId,omitempty"`
	RefundID      string `bson:"refundId,omitempty" json:"refundId,omitempty"`
	DisputeID     string `bson:"disputeId,omitempty" json:"disputeId,omitempty"`
}

// StatementMove is what a change of a wallet is, for its entry.
type StatementMove struct {
	Kind        string
	Description string
	Refs        StatementRefs
}

// StatementEntry is one entry of the journal (record kind walletStatement,
// id walletId:seq). Amount is the signed change of available + pending +
// disputed (0 for a move between them), Change the signed change of each,
// After the balances after it and Balance their sum: the running balance.
type StatementEntry struct {
	ID          string        `bson:"_id"`
	WalletID    string        `bson:"walletId"`
	StoreID     string        `bson:"storeId"`
	Seq         int64         `bson:"seq"`
	At          int64         `bson:"at"`
	Kind        string        `bson:"kind"`
	Amount      money.Fils    `bson:"amount"`
	Change      Balances      `bson:"change"`
	After       Balances      `bson:"after"`
	Balance     money.Fils    `bson:"balance"`
	Refs        StatementRefs `bson:"refs"`
	Description string        `bson:"description"`
}

// StatementEntries are the entries of a change of the wallet w from the
// balances before (seq: its MoveSeq before) to its balances now, at now (or
// at the wallet's last entry's time, JournaledAt, when now is earlier: a
// change whose now was taken before another change committed), and number
// them on w (MoveSeq). No change of the balances, no entry. A wallet
// that had balances before its first entry (a wallet older than the
// journal) gets a carried_forward entry of them first; a wallet changed
// without an entry since its last one (by a version older than the journal,
// during an upgrade: its balances differ from Journaled) gets an
// unrecorded_change entry of the difference first.
func StatementEntries(w *Wallet, before Balances, seq int64, m StatementMove, now int64) []StatementEntry {
	after := w.Balances()
	change := after.Plus(before.Neg())
	now = max(now, w.JournaledAt)
	var out []StatementEntry
	if gap := before.Plus(w.Journaled.Neg()); gap != (Balances{}) {
		seq++
		if seq == 1 {
			out = append(out, carried(w, before, seq, now))
		} else {
			out = append(out, StatementEntry{ID: fmt.Sprintf("%s:%d", w.ID, seq), WalletID: w.ID, StoreID: w.StoreID, Seq: seq, At: now,
				Kind: KindUnrecorded, Amount: gap.Sum(), Change: gap, After: before, Balance: before.Sum(),
				Description: "Balances changed without a statement entry (by a version older than the statement)"})
		}
	}
	if change != (Balances{}) {
		seq++
		out = append(out, StatementEntry{ID: fmt.Sprintf("%s:%d", w.ID, seq), WalletID: w.ID, StoreID: w.StoreID, Seq: seq, At: now, Kind: m.Kind,
			Amount: change.Sum(), Change: change, After: after, Balance: after.Sum(), Refs: m.Refs, Description: m.Description})
	}
	w.MoveSeq, w.Journaled = seq, after
	if len(out) > 0 {
		w.JournaledAt = now
	}
	return out
}

// CarriedForward is the opening entry of a wallet older than the journal
// (MoveSeq 0) with balances; nil when it needs none. It numbers it on w.
func CarriedForward(w *Wallet, now int64) *StatementEntry {
	if w.MoveSeq != 0 || w.Balances() == (Balances{}) {
		return nil
	}
	w.MoveSeq, w.Journaled, w.JournaledAt = 1, w.Balances(), now
	e := carried(w, w.Balances(), 1, now)
	return &e
}

func carried(w *Wallet, b Balances, seq int64, now int64) StatementEntry {
	return StatementEntry{ID: fmt.Sprintf("%s:%d", w.ID, seq), WalletID: w.ID, StoreID: w.StoreID, Seq: seq, At: now, Kind: KindCarried,
		Amount: b.Sum(), Change: b, After: b, Balance: b.Sum(), Description: "Balances carried forward from before the statement"}
}

// PlatformFee is a lost dispute's fee the platform bore (record kind
// platformDisputeFees, id: the dispute's).
type PlatformFee struct {
	ID      string     `bson:"_id"`
	OrderID string     `bson:"orderId"`
	StoreID string     `bson:"storeId"`
	Amount  money.Fils `bson:"amount"`
	At      int64      `bson:"at"`
}

// CheckStatement is what is wrong between the wallet w and its statement's
// last entry (nil: none written): it must be the wallet's last change
// (MoveSeq) and end at its balances. A wallet with no entry must have no
// change numbered.
func CheckStatement(w *Wallet, last *StatementEntry) []string {
	if last == nil {
		if w.MoveSeq != 0 {
			return []string{fmt.Sprintf("statement: the wallet counts %d changes, the journal has none", w.MoveSeq)}
		}
		return nil
	}
	var bad []string
	if last.Seq != w.MoveSeq {
		bad = append(bad, fmt.Sprintf("statement: the last entry is change %d, the wallet counts %d", last.Seq, w.MoveSeq))
	}
	if last.After != w.Balances() {
		bad = append(bad, fmt.Sprintf("statement: the last entry ends at %.2f available, %.2f pending, %.2f disputed; the wallet has %.2f, %.2f, %.2f",
			last.After.Available.AED(), last.After.Pending.AED(), last.After.Disputed.AED(), w.AvailableBalance.AED(), w.PendingBalance.AED(), w.DisputedBalance.AED()))
	}
	return bad
}
