package domain

import (
	"fmt"
	"time"

	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
)

// EarningKey is the source key of an order's earnings: one credit per order.
func EarningKey(orderID string) string { return "earning:" + orderID }

// Earning is what a delivered order earns its store, as the customers
// service confirmed it.
type Earning struct {
	OrderID, StoreID                      string
	Total, PlatformCommission, StoreEarns money.Fils
}

// NewEarning is the wallet transaction (id) of an earning credited at now:
// held in the pending balance for holdDays, released at releaseAt.
func NewEarning(id string, e Earning, holdDays int, now time.Time) *Transaction {
	return &Transaction{
		ID: id, WalletID: WalletIDOf(e.StoreID), StoreID: e.StoreID, Type: TxEarning, Amount: e.StoreEarns,
		Status: TxPending, HeldRemaining: e.StoreEarns, Description: "Earnings of order " + e.OrderID, SourceKey: EarningKey(e.OrderID),
		Metadata: map[string]string{
			"orderId": e.OrderID, "orderTotal": AEDText(e.Total),
			"platformCommission": AEDText(e.PlatformCommission), "holdDays": fmt.Sprint(holdDays),
		},
		ReleaseAt: now.Add(time.Duration(holdDays) * 24 * time.Hour).UnixMilli(), CreatedAt: now.UnixMilli(), UpdatedAt: now.UnixMilli(),
	}
}

// Releasable is how much of the held earning e a release moves when the
// wallet's pending balance is pending: what is still held of it
// (HeldRemaining), never what other earnings hold; the pending balance
// covers it in a consistent ledger, and the min only keeps a broken one
// from going negative.
func (e *Transaction) Releasable(pending money.Fils) money.Fils {
	return min(e.HeldRemaining, max(pending, 0))
}

// NewRelease is the wallet transaction (id) of the release of moved of the
// earning e at now.
func NewRelease(id string, e *Transaction, moved money.Fils, now int64) *Transaction {
	orderID := e.Metadata["orderId"]
	meta := map[string]string{"earningId": e.ID, "orderId": orderID}
	if moved < e.Amount {
		meta["heldAmount"] = AEDText(e.Amount)
	}
	return &Transaction{ID: id, WalletID: e.WalletID, StoreID: e.StoreID, Type: TxRelease, Amount: moved, Status: TxCompleted,
		Description: "Earnings of order " + orderID + " released", Metadata: meta, SourceKey: "release:" + e.ID, CreatedAt: now, UpdatedAt: now}
}

// Take is what a pending-lowering adjustment takes from one held earning.
type Take struct {
	EarningID string
	Held      money.Fils // its HeldRemaining before
	Amount    money.Fils
}

// TakeHeld is how amount comes out of the held earnings (oldest first, as
// given): from each as much as it still holds until amount is covered. The
// rest, if any, comes from the other pending credits (add_pending).
func TakeHeld(held []Transaction, amount money.Fils) (takes []Take, fromHeld money.Fils) {
	left := amount
	for _, e := range held {
		if left == 0 {
			break
		}
		if e.HeldRemaining <= 0 {
			continue
		}
		take := min(left, e.HeldRemaining)
		takes = append(takes, Take{EarningID: e.ID, Held: e.HeldRemaining, Amount: take})
		left -= take
	}
	return takes, amount - left
}

// AdjustmentRequest is an administrator's adjustWalletBalance. AdminName is
// the administrator's name as their token stated it (ops.ActingName; ""
// when it stated none): recorded beside the id, never used for access
// (docs/adr/0168).
type AdjustmentRequest struct {
	ID, WalletID, StoreID, Kind, Reason, AdminUserID, AdminName string
	Amount                                                      money.Fils
	AdminNotes                                                  *string
}

// NewAdjustment is the journal entry of an adjustment at now (recorded for
// a move_pending_to_available, which has no wallet transaction).
func NewAdjustment(r AdjustmentRequest, now int64) *Adjustment {
	return &Adjustment{ID: r.ID, WalletID: r.WalletID, StoreID: r.StoreID, AdjustmentType: r.Kind, Amount: r.Amount, Reason: r.Reason,
		AdminNotes: r.AdminNotes, AdminUserID: r.AdminUserID, AdminName: r.AdminName, SourceKey: "adjustment:" + r.ID, CreatedAt: now}
}

// Transaction is the wallet transaction (id) of adjustment a of type txType
// (Adjustment), with fromHeld taken from held earnings. Its metadata names
// the administrator by id and, when known, by name (adminName).
func (a *Adjustment) Transaction(id, txType string, now int64) *Transaction {
	meta := map[string]string{"adjustmentType": a.AdjustmentType, "adjustmentId": a.ID, "adminUserId": a.AdminUserID}
	if a.AdminName != "" {
		meta[MetaAdminName] = a.AdminName
	}
	if a.AdminNotes != nil {
		meta["adminNotes"] = *a.AdminNotes
	}
	if a.FromHeld > 0 {
		meta["fromHeldEarnings"] = AEDText(a.FromHeld)
	}
	return &Transaction{ID: id, WalletID: a.WalletID, StoreID: a.StoreID, Type: txType, Amount: a.Amount,
		Status: TxCompleted, Description: a.Reason, Metadata: meta, SourceKey: a.SourceKey, CreatedAt: now, UpdatedAt: now}
}

// AdjustedEvent is the wallet.adjusted event of a, the wallet w after it.
func (a *Adjustment) AdjustedEvent(w *Wallet, txType string) contract.WalletEvent {
	return w.Event(contract.WalletEvent{TransactionID: a.TransactionID, Type: txType, AdjustmentType: a.AdjustmentType,
		Amount: a.Amount, Reason: a.Reason, AdminUserID: a.AdminUserID, AdminName: a.AdminName})
}

// MetaAdminName is the metadata key of an adjustment's administrator's name
// on its wallet transaction: administrators' to read only (docs/adr/0168).
const MetaAdminName = "adminName"

// Adjuster is who made an adjustment: the administrator's id and name
// (empty on records from before names were kept, or without one).
type Adjuster struct{ ID, Name string }

// AdjusterOf is who made the adjustment whose wallet transaction is t.
func AdjusterOf(t *Transaction) Adjuster {
	return Adjuster{ID: t.Metadata["adminUserId"], Name: t.Metadata[MetaAdminName]}
}

// Adjuster is who made a.
func (a *Adjustment) Adjuster() Adjuster { return Adjuster{ID: a.AdminUserID, Name: a.AdminName} }
