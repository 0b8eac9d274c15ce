package payouts

import (
	"fmt"
	"strings"

	"marketplace/libs/ids"
	"marketplace/libs/money"
)

// Collections of the service's own database.
const (
	walletsColl     = "storeWallets"
	txColl          = "walletTransactions"
	payoutsColl     = "payouts"
	adjustmentsColl = "walletAdjustments"
)

// walletDoc is a store's wallet: one per store, amounts in fils. The owner's
// name and phone come from the catalog's store.created and store.updated
// events (getPendingPayouts shows them).
type walletDoc struct {
	ID               string     `bson:"_id"`
	StoreID          string     `bson:"storeId"`
	StoreName        string     `bson:"storeName"`
	OwnerUserID      string     `bson:"ownerUserId"`
	OwnerName        string     `bson:"ownerName"`
	OwnerPhone       string     `bson:"ownerPhone"`
	StoreVersion     int64      `bson:"storeVersion,omitempty"` // the catalog's version of the store the fields above come from
	AvailableBalance money.Fils `bson:"availableBalance"`
	PendingBalance   money.Fils `bson:"pendingBalance"`
	TotalEarnings    money.Fils `bson:"totalEarnings"`
	TotalPayouts     money.Fils `bson:"totalPayouts"`
	LastPayoutDate   *int64     `bson:"lastPayoutDate"`
	TotalOrders      int64      `bson:"totalOrders"`
	CreationTime     int64      `bson:"creationTime"`
	UpdatedAt        int64      `bson:"updatedAt"`
}

func (w *walletDoc) balances() Balances {
	return Balances{Available: w.AvailableBalance, Pending: w.PendingBalance}
}

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

// storeIDOf is the store whose wallet id is walletID (WalletIDOf's inverse).
func storeIDOf(walletID string) string {
	return "sto_" + walletID[strings.IndexByte(walletID, '_')+1:]
}

// txDoc is a wallet transaction: the ledger. SourceKey is unique: what caused
// the transaction (an order's earnings, a payout, an adjustment), so a
// redelivered event or a retried request can never record it twice.
type txDoc struct {
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
	HeldTaken     []heldTake `bson:"heldTaken,omitempty"`
	ReleasedAt    int64      `bson:"releasedAt,omitempty"`
	CreatedAt     int64      `bson:"creationTime"`
	UpdatedAt     int64      `bson:"updatedAt"`
}

// heldTake is what one deduct_pending or move_pending_to_available took from a
// held earning.
type heldTake struct {
	AdjustmentID string     `bson:"adjustmentId"`
	Amount       money.Fils `bson:"amount"`
	At           int64      `bson:"at"`
}

// adjustmentDoc is the ledger entry of a move_pending_to_available, which
// records no wallet transaction: who moved how much, when and why. (The other
// adjustments are recorded by their transaction, whose metadata says who.)
type adjustmentDoc struct {
	ID             string     `bson:"_id"`
	WalletID       string     `bson:"walletId"`
	StoreID        string     `bson:"storeId"`
	AdjustmentType string     `bson:"adjustmentType"`
	Amount         money.Fils `bson:"amount"`
	Reason         string     `bson:"reason"`
	AdminNotes     *string    `bson:"adminNotes,omitempty"`
	AdminUserID    string     `bson:"adminUserId"`
	TransactionID  string     `bson:"transactionId,omitempty"`
	SourceKey      string     `bson:"sourceKey"` // as its transaction's would be (adjustmentSource)
	// FromHeld is what came out of held earnings (takeHeld), the rest of a
	// move out of other pending credits.
	FromHeld  money.Fils `bson:"fromHeld,omitempty"`
	CreatedAt int64      `bson:"creationTime"`
}

type bankDetails struct {
	IBAN              string `bson:"iban"`
	BankName          string `bson:"bankName"`
	AccountHolderName string `bson:"accountHolderName"`
}

// historyEntry is one move of a payout: who, when, and what they gave.
type historyEntry struct {
	Action         string  `bson:"action"` // the operation: requestPayout, approvePayout, ...
	From           string  `bson:"from,omitempty"`
	To             string  `bson:"to"`
	By             string  `bson:"by"`
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

// payoutDoc is a payout request (record kind payouts).
type payoutDoc struct {
	ID                   string         `bson:"_id"`
	StoreID              string         `bson:"storeId"`
	WalletID             string         `bson:"walletId"`
	StoreName            string         `bson:"storeName"`
	OwnerUserID          string         `bson:"ownerUserId"`
	RequestedAmount      money.Fils     `bson:"requestedAmount"`
	ProcessingFee        money.Fils     `bson:"processingFee"`
	NetAmount            money.Fils     `bson:"netAmount"`
	BankDetails          bankDetails    `bson:"bankDetails"`
	Status               string         `bson:"status"`
	RequestDate          int64          `bson:"requestDate"`
	RequestedBy          string         `bson:"requestedBy"`
	TransactionID        string         `bson:"transactionId"` // its payout wallet transaction
	ApprovedDate         *int64         `bson:"approvedDate"`
	ApprovedBy           string         `bson:"approvedBy,omitempty"`
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
	History              []historyEntry `bson:"history"`
	// HandedOverAt is when the payouts service learnt that the store was
	// handed to another owner after this payout was requested (handover.go):
	// a requested payout was then cancelled, one approved or processing
	// flagged.
	HandedOverAt *int64 `bson:"handedOverAt,omitempty"`
	CreationTime int64  `bson:"creationTime"`
	UpdatedAt    int64  `bson:"updatedAt"`
}

// owner is the store's owner when p was requested (its requester: only the
// owner requests; payouts recorded without the owner name the requester).
func (p *payoutDoc) owner() string {
	if p.OwnerUserID != "" {
		return p.OwnerUserID
	}
	return p.RequestedBy
}

// The interface shapes: AED numbers.

// WalletView is stores.wallet.getWallet's answer (platform contract section 4).
type WalletView struct {
	ID               string  `json:"_id"`
	StoreID          string  `json:"storeId"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalPayouts     float64 `json:"totalPayouts"`
	LastPayoutDate   *int64  `json:"lastPayoutDate"`
	TotalOrders      int64   `json:"totalOrders"`
}

func (w *walletDoc) view() WalletView {
	return WalletView{
		ID: w.ID, StoreID: w.StoreID, AvailableBalance: w.AvailableBalance.AED(), PendingBalance: w.PendingBalance.AED(),
		TotalEarnings: w.TotalEarnings.AED(), TotalPayouts: w.TotalPayouts.AED(), LastPayoutDate: w.LastPayoutDate, TotalOrders: w.TotalOrders,
	}
}

// TransactionView is an item of stores.wallet.listTransactions. Metadata
// (admin notes among it) is shown to administrators only; releaseDate is an
// earning's.
type TransactionView struct {
	ID           string            `json:"_id"`
	Type         string            `json:"type"`
	Amount       float64           `json:"amount"`
	Status       string            `json:"status"`
	Description  string            `json:"description"`
	CreationTime int64             `json:"_creationTime"`
	ReleaseDate  *int64            `json:"releaseDate,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
}

func (t *txDoc) view(admin bool) TransactionView {
	v := TransactionView{ID: t.ID, Type: t.Type, Amount: t.Amount.AED(), Status: t.Status, Description: t.Description, CreationTime: t.CreatedAt}
	if t.Type == TxEarning && t.ReleaseAt != 0 {
		r := t.ReleaseAt
		v.ReleaseDate = &r
	}
	if admin {
		v.Metadata = t.Metadata
		if v.Metadata == nil {
			v.Metadata = map[string]string{}
		}
	}
	return v
}

// BankDetailsView is a payout's bank details as the interface names them.
type BankDetailsView struct {
	IBAN              string `json:"IBAN"`
	BankName          string `json:"bankName"`
	AccountHolderName string `json:"accountHolderName"`
}

// PayoutItem is a payout as getPendingPayouts returns it (section 2.6).
// currentWalletBalance is the store's available balance now.
type PayoutItem struct {
	ID                   string          `json:"_id"`
	CreationTime         int64           `json:"_creationTime"`
	StoreID              string          `json:"storeId"`
	StoreName            string          `json:"storeName"`
	StoreOwnerName       string          `json:"storeOwnerName"`
	StoreOwnerPhone      string          `json:"storeOwnerPhone"`
	RequestedAmount      float64         `json:"requestedAmount"`
	ProcessingFee        float64         `json:"processingFee"`
	NetAmount            float64         `json:"netAmount"`
	BankDetails          BankDetailsView `json:"bankDetails"`
	Status               string          `json:"status"`
	RequestDate          int64           `json:"requestDate"`
	ApprovedDate         *int64          `json:"approvedDate"`
	RequestedBy          string          `json:"requestedBy"`
	CurrentWalletBalance float64         `json:"currentWalletBalance"`
	TotalEarnings        float64         `json:"totalEarnings"`
	TotalOrders          int64           `json:"totalOrders"`
	// HandedOverAt is when the payouts service learnt that the store was
	// handed to another owner after the request (null: not handed over).
	// HandedOver says the same of an open payout as the catalog has the store
	// now, even before that is recorded: its requester (requestedBy, whose
	// bank account bankDetails is) is not the store's owner (storeOwnerName)
	// any more. Approving, marking processing or completing such a payout
	// needs confirmHandover: true.
	HandedOverAt *int64 `json:"handedOverAt"`
	HandedOver   bool   `json:"handedOver"`
	// ownerAtRequest is whose store it was when the payout was requested.
	ownerAtRequest string
}

// HistoryView is one move of a payout as shown.
type HistoryView struct {
	Action         string  `json:"action"`
	From           *string `json:"from"`
	To             string  `json:"to"`
	By             string  `json:"by"`
	At             int64   `json:"at"`
	Notes          *string `json:"notes,omitempty"` // administrators only
	Reason         *string `json:"reason,omitempty"`
	Method         *string `json:"method,omitempty"`
	Reference      *string `json:"reference,omitempty"`
	RestoreBalance *bool   `json:"restoreBalance,omitempty"`
	// HandoverConfirmed: the move paid on a payout of a store handed over
	// since its request, as the administrator confirmed.
	HandoverConfirmed *bool `json:"handoverConfirmed,omitempty"`
}

// Payout is a payout with everything recorded on it: the admin moves' answer
// and the items of stores.payouts.listPayouts (where admin notes are left out
// for the store's owner).
type Payout struct {
	PayoutItem
	ApprovedBy           *string       `json:"approvedBy"`
	ProcessingDate       *int64        `json:"processingDate"`
	ProcessingMethod     *string       `json:"processingMethod"`
	TransactionReference *string       `json:"transactionReference"`
	CompletedDate        *int64        `json:"completedDate"`
	RejectedDate         *int64        `json:"rejectedDate"`
	RejectionReason      *string       `json:"rejectionReason"`
	FailedDate           *int64        `json:"failedDate"`
	FailureReason        *string       `json:"failureReason"`
	BalanceRestored      bool          `json:"balanceRestored"`
	AdminNotes           *string       `json:"adminNotes,omitempty"`
	History              []HistoryView `json:"history"`
}

// aedText is an amount as metadata text ("12.50").
func aedText(f money.Fils) string { return fmt.Sprintf("%.2f", f.AED()) }

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// item is p as section 2.6 shows it, with the wallet's figures (w may be nil:
// the wallet is not open yet) .
func (p *payoutDoc) item(w *walletDoc) PayoutItem {
	it := PayoutItem{
		ID: p.ID, CreationTime: p.CreationTime, StoreID: p.StoreID, StoreName: p.StoreName,
		RequestedAmount: p.RequestedAmount.AED(), ProcessingFee: p.ProcessingFee.AED(), NetAmount: p.NetAmount.AED(),
		BankDetails: BankDetailsView{IBAN: p.BankDetails.IBAN, BankName: p.BankDetails.BankName, AccountHolderName: p.BankDetails.AccountHolderName},
		Status:      p.Status, RequestDate: p.RequestDate, ApprovedDate: p.ApprovedDate, RequestedBy: p.RequestedBy,
		HandedOverAt: p.HandedOverAt, HandedOver: p.HandedOverAt != nil, ownerAtRequest: p.owner(),
	}
	if w != nil {
		it.StoreOwnerName, it.StoreOwnerPhone = w.OwnerName, w.OwnerPhone
		it.CurrentWalletBalance, it.TotalEarnings, it.TotalOrders = w.AvailableBalance.AED(), w.TotalEarnings.AED(), w.TotalOrders
		if it.StoreName == "" {
			it.StoreName = w.StoreName
		}
	}
	return it
}

// detail is p with everything recorded on it; admin notes only for admin.
func (p *payoutDoc) detail(w *walletDoc, admin bool) Payout {
	d := Payout{
		PayoutItem: p.item(w), ApprovedBy: strPtr(p.ApprovedBy), ProcessingDate: p.ProcessingDate,
		ProcessingMethod: strPtr(p.ProcessingMethod), TransactionReference: strPtr(p.TransactionReference),
		CompletedDate: p.CompletedDate, RejectedDate: p.RejectedDate, RejectionReason: strPtr(p.RejectionReason),
		FailedDate: p.FailedDate, FailureReason: strPtr(p.FailureReason), BalanceRestored: p.BalanceRestored,
		History: make([]HistoryView, 0, len(p.History)),
	}
	if admin {
		d.AdminNotes = strPtr(p.AdminNotes)
	}
	for _, h := range p.History {
		hv := HistoryView{Action: h.Action, From: strPtr(h.From), To: h.To, By: h.By, At: h.At, Reason: h.Reason,
			Method: h.Method, Reference: h.Reference, RestoreBalance: h.RestoreBalance, HandoverConfirmed: h.HandoverConfirmed}
		if admin {
			hv.Notes = h.Notes
		}
		d.History = append(d.History, hv)
	}
	return d
}
