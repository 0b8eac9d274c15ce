package domain

import (
	"strings"

	"marketplace/libs/ids"
	"marketplace/libs/money"
)

// Wallet is a store's wallet: one per store, amounts in fils. The owner's
// name and phone come from the catalog's store.created and store.updated
// events (getPendingPayouts shows them).
type Wallet struct {
	ID               string     `bson:"_id"`
	StoreID          string     `bson:"storeId"`
	StoreName        string     `bson:"storeName"`
	OwnerUserID      string     `bson:"ownerUserId"`
	OwnerName        string     `bson:"ownerName"`
	OwnerPhone       string     `bson:"ownerPhone"`
	StoreVersion     int64      `bson:"storeVersion,omitempty"` // the catalog's version of the store the fields above come from
	AvailableBalance money.Fils `bson:"availableBalance"`
	PendingBalance   money.Fils `bson:"pendingBalance"`
	// DisputedBalance is the store's share of open disputes (held out of
	// available or pending); absent from wallets older than disputes.
	DisputedBalance money.Fils `bson:"disputedBalance"`
	// MoveSeq numbers the wallet's balance changes: the statement journal's
	// entries (statement.go) carry it, so they are exactly one per change.
	MoveSeq int64 `bson:"moveSeq"`
	// Journaled are the balances the journal's last entry ends at: a
	// change made without an entry (by a version older than the journal,
	// during a rolling upgrade) shows as a difference, which the next entry
	// records first (StatementEntries).
	Journaled Balances `bson:"journaled"`
	// JournaledAt is the time of the journal's last entry: an entry is
	// never earlier (StatementEntries), so entry times never go back along
	// MoveSeq and a period is a range of entries. 0 on a wallet last
	// journaled by an older version (changeWallet reads its last entry).
	JournaledAt    int64      `bson:"journaledAt,omitempty"`
	TotalEarnings  money.Fils `bson:"totalEarnings"`
	TotalPayouts   money.Fils `bson:"totalPayouts"`
	LastPayoutDate *int64     `bson:"lastPayoutDate"`
	TotalOrders    int64      `bson:"totalOrders"`
	CreationTime   int64      `bson:"creationTime"`
	UpdatedAt      int64      `bson:"updatedAt"`
}

// Balances are the wallet's three balances.
func (w *Wallet) Balances() Balances {
	return Balances{Available: w.AvailableBalance, Pending: w.PendingBalance, Disputed: w.DisputedBalance}
}

// Debt is how much the available balance is below zero (0: none).
func (w *Wallet) Debt() money.Fils { return max(-w.AvailableBalance, 0) }

// WalletIDOf is the id of a store's wallet: the store id's own 24 hex digits under
// the wallet prefix. A wallet's id is known before the wallet is open (the
// store.created event still in flight), so getWallet can answer it without
// writing, and opening it twice can only ever open one.
func WalletIDOf(storeID string) string {
	if !ids.Valid("stores", storeID) {
		return ""
	}
	return "wal_" + storeID[strings.IndexByte(storeID, '_')+1:]
}

// StoreIDOf is the store whose wallet id is walletID (WalletIDOf's inverse).
func StoreIDOf(walletID string) string {
	return "sto_" + walletID[strings.IndexByte(walletID, '_')+1:]
}

// Transaction is a wallet transaction: the ledger. SourceKey is unique: what caused
// the transaction (an order's earnings, a payout, an adjustment), so a
// redelivered event or a retried request can never record it twice.
type Transaction struct {
	ID          string            `bson:"_id"`
	WalletID    string            `bson:"walletId"`
	StoreID     string            `bson:"storeId"`
	Type        string            `bson:"type"`
	Amount      money.Fils        `bson:"amount"`
	Status      string            `bson:"status"`
	Description string            `bson:"description"`
	Metadata    map[string]string `bson:"metadata"`
	SourceKey   string            `bson:"sourceKey"`
	ReleaseAt   int64             `bson:"releaseAt,omitempty"` // earnings: when they become available
	// HeldRemaining is what of an earning is still held: its amount less what
	// deduct_pending and move_pending_to_available took from it (HeldTaken)
	// and, once released, what its release moved (then 0). The pending
	// balance always covers the sum of the held earnings' HeldRemaining.
	HeldRemaining money.Fils `bson:"heldRemaining,omitempty"`
	HeldTaken     []HeldTake `bson:"heldTaken,omitempty"`
	ReleasedAt    int64      `bson:"releasedAt,omitempty"`
	// Delta is the signed change of the balances a transaction of the money
	// after the order made (refunds, disputes: docs/adr/0147), as Effect
	// gives it; absent from the older types.
	Delta *Balances `bson:"delta,omitempty"`
	// ReversedBeforeCredit is, on an earning, the store's share of what was
	// refunded or lost in disputes before the order was credited: the
	// earning is the order's store earnings less it.
	ReversedBeforeCredit money.Fils `bson:"reversedBeforeCredit,omitempty"`
	CreatedAt            int64      `bson:"creationTime"`
	UpdatedAt            int64      `bson:"updatedAt"`
}

// StillHeld says whether an earning still holds money for its store: not
// released and not wholly taken by an early release, a deduction or a
// refund (what the statement reads "held" and upcoming releases list;
// storage's heldFilter is the same rule as a query).
func (t Transaction) StillHeld() bool {
	return t.Type == TxEarning && t.Status == TxPending && t.HeldRemaining > 0
}

// HeldTake is what one deduct_pending or move_pending_to_available took from a
// held earning.
type HeldTake struct {
	AdjustmentID string     `bson:"adjustmentId"`
	Amount       money.Fils `bson:"amount"`
	At           int64      `bson:"at"`
}

// Adjustment is the ledger entry of a move_pending_to_available, which
// records no wallet transaction: who moved how much, when and why. (The other
// adjustments are recorded by their transaction, whose metadata says who.)
type Adjustment struct {
	ID             string     `bson:"_id"`
	WalletID       string     `bson:"walletId"`
	StoreID        string     `bson:"storeId"`
	AdjustmentType string     `bson:"adjustmentType"`
	Amount         money.Fils `bson:"amount"`
	Reason         string     `bson:"reason"`
	AdminNotes     *string    `bson:"adminNotes,omitempty"`
	AdminUserID    string     `bson:"adminUserId"`
	// AdminName is the administrator's name as their token stated it
	// (docs/adr/0168): omitted when it stated none, and on older entries.
	AdminName     string `bson:"adminName,omitempty"`
	TransactionID string `bson:"transactionId,omitempty"`
	SourceKey     string `bson:"sourceKey"` // as its transaction's would be (adjustmentSource)
	// FromHeld is what came out of held earnings (takeHeld), the rest of a
	// move out of other pending credits.
	FromHeld  money.Fils `bson:"fromHeld,omitempty"`
	CreatedAt int64      `bson:"creationTime"`
}

type BankDetails struct {
	IBAN              string `bson:"iban"`
	BankName          string `bson:"bankName"`
	AccountHolderName string `bson:"accountHolderName"`
}

// HistoryEntry is one move of a payout: who, when, and what they gave.
type HistoryEntry struct {
	Action string `bson:"action"` // the operation: requestPayout, approvePayout, ...
	From   string `bson:"from,omitempty"`
	To     string `bson:"to"`
	By     string `bson:"by"`
	// ByName is who moved it by name, as their token stated it ("" when it
	// had none, for the system's moves, and on older entries: docs/adr/0168).
	ByName         string  `bson:"byName,omitempty"`
	At             int64   `bson:"at"`
	Notes          *string `bson:"notes,omitempty"`
	Reason         *string `bson:"reason,omitempty"`
	Method         *string `bson:"method,omitempty"`
	Reference      *string `bson:"reference,omitempty"`
	RestoreBalance *bool   `bson:"restoreBalance,omitempty"`
	// HandoverConfirmed: the administrator paid on a payout of a store
	// handed over since its request (confirmHandover).
	HandoverConfirmed *bool `bson:"handoverConfirmed,omitempty"`
}

// Payout is a payout request (record kind payouts).
type Payout struct {
	ID              string      `bson:"_id"`
	StoreID         string      `bson:"storeId"`
	WalletID        string      `bson:"walletId"`
	StoreName       string      `bson:"storeName"`
	OwnerUserID     string      `bson:"ownerUserId"`
	RequestedAmount money.Fils  `bson:"requestedAmount"`
	ProcessingFee   money.Fils  `bson:"processingFee"`
	NetAmount       money.Fils  `bson:"netAmount"`
	BankDetails     BankDetails `bson:"BankDetails"`
	Status          string      `bson:"status"`
	RequestDate     int64       `bson:"requestDate"`
	RequestedBy     string      `bson:"requestedBy"`
	// RequestedByName is the requester's name (RequesterName) when known,
	// "" on payouts requested before names were recorded (docs/adr/0168).
	RequestedByName string `bson:"requestedByName,omitempty"`
	TransactionID   string `bson:"transactionId"` // its payout wallet transaction
	ApprovedDate    *int64 `bson:"approvedDate"`
	ApprovedBy      string `bson:"approvedBy,omitempty"`
	// ApprovedByName is the approving administrator's name as their token
	// stated it ("" when it had none, and on payouts approved before names
	// were recorded: docs/adr/0168).
	ApprovedByName       string         `bson:"approvedByName,omitempty"`
	ProcessingDate       *int64         `bson:"processingDate,omitempty"`
	ProcessingMethod     string         `bson:"processingMethod,omitempty"`
	TransactionReference string         `bson:"transactionReference,omitempty"`
	CompletedDate        *int64         `bson:"completedDate,omitempty"`
	RejectedDate         *int64         `bson:"rejectedDate,omitempty"`
	RejectionReason      string         `bson:"rejectionReason,omitempty"`
	FailedDate           *int64         `bson:"failedDate,omitempty"`
	FailureReason        string         `bson:"failureReason,omitempty"`
	BalanceRestored      bool           `bson:"balanceRestored"`
	AdminNotes           string         `bson:"adminNotes,omitempty"` // the latest notes given
	History              []HistoryEntry `bson:"history"`
	// HandedOverAt is when the payouts service learnt that the store was
	// handed to another owner after this payout was requested (handover.go):
	// a requested payout was then cancelled, one approved or processing
	// flagged.
	HandedOverAt *int64 `bson:"handedOverAt,omitempty"`
	// TransferAskedAt is when an administrator first sent the payout
	// through the processor (sendPayoutThroughProcessor), recorded before
	// the processor is asked; TransferID is the processor's transfer (po_…)
	// once recorded on the payout (domain/transfer.go).
	TransferAskedAt *int64 `bson:"transferAskedAt,omitempty"`
	TransferID      string `bson:"transferId,omitempty"`
	CreationTime    int64  `bson:"creationTime"`
	UpdatedAt       int64  `bson:"updatedAt"`
}

// Owner is the store's owner when p was requested (its requester: only the
// owner requests; payouts recorded without the owner name the requester).
func (p *Payout) Owner() string {
	if p.OwnerUserID != "" {
		return p.OwnerUserID
	}
	return p.RequestedBy
}
