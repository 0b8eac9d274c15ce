package payouts

import "marketplace/services/payouts/domain"

// The interface shapes of the service's answers: AED numbers.

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
	// DisputedBalance is the store's share of open disputes, Debt how much
	// the available balance is below zero (docs/adr/0147): added fields.
	DisputedBalance float64 `json:"disputedBalance"`
	Debt            float64 `json:"debt"`
}

func walletView(w *domain.Wallet) WalletView {
	return WalletView{
		ID: w.ID, StoreID: w.StoreID, AvailableBalance: w.AvailableBalance.AED(), PendingBalance: w.PendingBalance.AED(),
		TotalEarnings: w.TotalEarnings.AED(), TotalPayouts: w.TotalPayouts.AED(), LastPayoutDate: w.LastPayoutDate, TotalOrders: w.TotalOrders,
		DisputedBalance: w.DisputedBalance.AED(), Debt: w.Debt().AED(),
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

func txView(t *domain.Transaction, admin bool) TransactionView {
	v := TransactionView{ID: t.ID, Type: t.Type, Amount: t.Amount.AED(), Status: t.Status, Description: t.Description, CreationTime: t.CreatedAt}
	if t.Type == domain.TxEarning && t.ReleaseAt != 0 {
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
	ID              string          `json:"_id"`
	CreationTime    int64           `json:"_creationTime"`
	StoreID         string          `json:"storeId"`
	StoreName       string          `json:"storeName"`
	StoreOwnerName  string          `json:"storeOwnerName"`
	StoreOwnerPhone string          `json:"storeOwnerPhone"`
	RequestedAmount float64         `json:"requestedAmount"`
	ProcessingFee   float64         `json:"processingFee"`
	NetAmount       float64         `json:"netAmount"`
	BankDetails     BankDetailsView `json:"bankDetails"`
	Status          string          `json:"status"`
	RequestDate     int64           `json:"requestDate"`
	ApprovedDate    *int64          `json:"approvedDate"`
	RequestedBy     string          `json:"requestedBy"`
	// RequestedByName is the requester's name when known (docs/adr/0168).
	RequestedByName      *string `json:"requestedByName,omitempty"`
	CurrentWalletBalance float64 `json:"currentWalletBalance"`
	TotalEarnings        float64 `json:"totalEarnings"`
	TotalOrders          int64   `json:"totalOrders"`
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
	Action string  `json:"action"`
	From   *string `json:"from"`
	To     string  `json:"to"`
	By     string  `json:"by"`
	// ByName is who moved it by name, when their token stated one
	// (docs/adr/0168): omitted otherwise, for the system and on older entries.
	ByName         *string `json:"byName,omitempty"`
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
	ApprovedBy *string `json:"approvedBy"`
	// ApprovedByName is the approving administrator's name when their token
	// stated one (docs/adr/0168): omitted otherwise and on older payouts.
	ApprovedByName       *string       `json:"approvedByName,omitempty"`
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

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// item is p as section 2.6 shows it, with the wallet's figures (w may be nil:
// the wallet is not open yet) .
func payoutItem(p *domain.Payout, w *domain.Wallet) PayoutItem {
	it := PayoutItem{
		ID: p.ID, CreationTime: p.CreationTime, StoreID: p.StoreID, StoreName: p.StoreName,
		RequestedAmount: p.RequestedAmount.AED(), ProcessingFee: p.ProcessingFee.AED(), NetAmount: p.NetAmount.AED(),
		BankDetails: BankDetailsView{IBAN: p.BankDetails.IBAN, BankName: p.BankDetails.BankName, AccountHolderName: p.BankDetails.AccountHolderName},
		Status:      p.Status, RequestDate: p.RequestDate, ApprovedDate: p.ApprovedDate, RequestedBy: p.RequestedBy,
		RequestedByName: strPtr(p.RequestedByName), HandedOverAt: p.HandedOverAt, HandedOver: p.HandedOverAt != nil, ownerAtRequest: p.Owner(),
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

// detail is p with everything recorded on it; admin notes, and the names of
// the administrators who moved it, only for admin (docs/adr/0168: the store's
// owner sees their ids, as before names were recorded, and the owner's own
// name on the request).
func payoutDetail(p *domain.Payout, w *domain.Wallet, admin bool) Payout {
	d := Payout{
		PayoutItem: payoutItem(p, w), ApprovedBy: strPtr(p.ApprovedBy), ApprovedByName: strPtr(p.ApprovedByName), ProcessingDate: p.ProcessingDate,
		ProcessingMethod: strPtr(p.ProcessingMethod), TransactionReference: strPtr(p.TransactionReference),
		CompletedDate: p.CompletedDate, RejectedDate: p.RejectedDate, RejectionReason: strPtr(p.RejectionReason),
		FailedDate: p.FailedDate, FailureReason: strPtr(p.FailureReason), BalanceRestored: p.BalanceRestored,
		History: make([]HistoryView, 0, len(p.History)),
	}
	if admin {
		d.AdminNotes = strPtr(p.AdminNotes)
	} else {
		d.ApprovedByName = nil // an administrator's name: not the owner's to see
	}
	for _, h := range p.History {
		hv := HistoryView{Action: h.Action, From: strPtr(h.From), To: h.To, By: h.By, ByName: strPtr(h.ByName), At: h.At, Reason: h.Reason,
			Method: h.Method, Reference: h.Reference, RestoreBalance: h.RestoreBalance, HandoverConfirmed: h.HandoverConfirmed}
		if admin {
			hv.Notes = h.Notes
		} else if h.Action != domain.ActionRequest {
			hv.ByName = nil // every move after the request is an administrator's (or the system's)
		}
		d.History = append(d.History, hv)
	}
	return d
}
