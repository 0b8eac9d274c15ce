// Package payouts is the payouts-and-wallets context's contract: its events
// (topics "payouts" and "wallets"), read by the notifications service.
package payouts

import "marketplace/libs/money"

// Service is the payouts module name.
const Service = "payouts"

// Topics: payout events keyed by payout id, wallet events keyed by wallet id.
const (
	TopicPayouts = "payouts"
	TopicWallets = "wallets"
)

// Event types on TopicPayouts; every one carries a PayoutEvent. Each is one
// move of the payout's status (marketplace-interface section 3.1).
const (
	EventPayoutRequested  = "payout.requested"
	EventPayoutApproved   = "payout.approved"
	EventPayoutRejected   = "payout.rejected"
	EventPayoutProcessing = "payout.processing"
	EventPayoutCompleted  = "payout.completed"
	EventPayoutFailed     = "payout.failed"
	// EventPayoutCancelled: a payout still requested was cancelled because
	// its store was handed to another owner (Reason "store handed over";
	// StoreOwnerUserID is the former owner, who requested it; AdminUserID
	// empty: no administrator moved it). The amount went back to the
	// store's available balance.
	EventPayoutCancelled = "payout.cancelled"
)

// Event types on TopicWallets; every one carries a WalletEvent.
const (
	EventWalletCredited = "wallet.credited" // an order's earnings entered the pending balance
	EventWalletReleased = "wallet.released" // held earnings moved from pending to available
	EventWalletAdjusted = "wallet.adjusted" // an administrator adjusted the balances
)

// EventBankAccountChanged is on TopicWallets, keyed by wallet id, and
// carries a BankAccountChanged: the store's saved payout bank account was
// set or changed (stores.payouts.setBankAccount, or requestPayout with
// saveBankAccount). Its owner is told, against account takeover.
const EventBankAccountChanged = "payouts.bank_account_changed"

// BankAccountChanged is the data of EventBankAccountChanged: the store, its
// wallet, its owner (who saved it is ChangedBy), the new IBAN's last four
// characters only, and when (epoch ms).
type BankAccountChanged struct {
	StoreID     string `json:"storeId"`
	WalletID    string `json:"walletId"`
	OwnerUserID string `json:"ownerUserId"`
	IBANLast4   string `json:"ibanLast4"`
	ChangedBy   string `json:"changedBy"`
	EventTime   int64  `json:"eventTime"`
}

// Payout statuses.
const (
	StatusRequested  = "requested"
	StatusApproved   = "approved"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
	StatusFailed     = "failed"
)

// Processing methods of markPayoutAsProcessing.
const (
	MethodBankTransfer = "bank_transfer"
	MethodManual       = "manual"
	MethodThirdParty   = "third_party"
)

// Wallet adjustment types of adjustWalletBalance.
const (
	AdjustAddBalance             = "add_balance"
	AdjustDeductBalance          = "deduct_balance"
	AdjustAddPending             = "add_pending"
	AdjustDeductPending          = "deduct_pending"
	AdjustMovePendingToAvailable = "move_pending_to_available"
)

// PayoutEvent is the data of every payout event. Money is integer fils. From
// is empty on payout.requested; AdminUserID is the administrator who made the
// move (empty on payout.requested, whose actor is RequestedBy). Reason is the
// rejection or failure reason; BalanceRestored tells whether the amount went
// back to the store's available balance (payout.rejected always,
// payout.failed when the administrator asked for it).
type PayoutEvent struct {
	PayoutID         string `json:"payoutId"`
	StoreID          string `json:"storeId"`
	StoreName        string `json:"storeName"`
	WalletID         string `json:"walletId"`
	StoreOwnerUserID string `json:"storeOwnerUserId"`
	RequestedBy      string `json:"requestedBy"`
	// RequestedByName is the requester's name when the payouts service knew
	// it (docs/adr/0168); AdminName the administrator's (AdminUserID) when
	// their token stated one. Both omitted otherwise.
	RequestedByName      string     `json:"requestedByName,omitempty"`
	RequestedAmount      money.Fils `json:"requestedAmountFils"`
	ProcessingFee        money.Fils `json:"processingFeeFils"`
	NetAmount            money.Fils `json:"netAmountFils"`
	Status               string     `json:"status" enum:"requested|approved|processing|completed|cancelled|failed"`
	From                 string     `json:"from,omitempty" enum:"requested|approved|processing|completed|cancelled|failed"`
	AdminUserID          string     `json:"adminUserId,omitempty"`
	AdminName            string     `json:"adminName,omitempty"`
	Reason               string     `json:"reason,omitempty"`
	ProcessingMethod     string     `json:"processingMethod,omitempty" enum:"bank_transfer|manual|third_party"`
	TransactionReference string     `json:"transactionReference,omitempty"`
	BalanceRestored      bool       `json:"balanceRestored,omitempty"`
}

// WalletEvent is the data of every wallet event. Money is integer fils;
// Available and Pending are the balances after the change. Type is the
// wallet transaction's type (earning, release, bonus, penalty,
// pending_credit, pending_debit) or, for an adjustment that records no
// transaction, empty; AdjustmentType and Reason are set on wallet.adjusted,
// OrderID on wallet.credited and wallet.released.
type WalletEvent struct {
	WalletID         string     `json:"walletId"`
	StoreID          string     `json:"storeId"`
	StoreName        string     `json:"storeName"`
	StoreOwnerUserID string     `json:"storeOwnerUserId"`
	TransactionID    string     `json:"transactionId,omitempty"`
	Type             string     `json:"type,omitempty" enum:"earning|release|payout|bonus|penalty|pending_credit|pending_debit"`
	AdjustmentType   string     `json:"adjustmentType,omitempty" enum:"add_balance|deduct_balance|add_pending|deduct_pending|move_pending_to_available"`
	Amount           money.Fils `json:"amountFils"`
	Available        money.Fils `json:"availableBalanceFils"`
	Pending          money.Fils `json:"pendingBalanceFils"`
	OrderID          string     `json:"orderId,omitempty"`
	Reason           string     `json:"reason,omitempty"`
	AdminUserID      string     `json:"adminUserId,omitempty"`
	// AdminName is the administrator's (AdminUserID) name on wallet.adjusted
	// when their token stated one (docs/adr/0168); omitted otherwise.
	AdminName string `json:"adminName,omitempty"`
	ReleaseAt int64  `json:"releaseAt,omitempty"` // wallet.credited: when the earning becomes available (epoch ms)
}

// Wallet events of the money after the order (docs/adr/0147), on
// TopicWallets, keyed by wallet id; every one carries a WalletMoveEvent (not
// a WalletEvent: its type enum is closed, docs/adr/0090).
const (
	EventWalletRefundReversed = "wallet.refund_reversed"  // a refund's store share left the wallet (pending first if held, then available)
	EventWalletDisputeHeld    = "wallet.dispute_held"     // a dispute's store share moved into the disputed balance
	EventWalletDisputeRelease = "wallet.dispute_released" // a won dispute's share went back (to the held earning, the rest to available)
	EventWalletDisputeDebited = "wallet.dispute_debited"  // a lost dispute's share (and fee, if the store's) left the wallet
)

// Kinds of a WalletMoveEvent.
const (
	MoveRefund         = "refund"
	MoveDisputeHold    = "dispute_hold"
	MoveDisputeRelease = "dispute_release"
	MoveDisputeLoss    = "dispute_loss"
)

// WalletMoveEvent is the data of the wallet events of refunds and disputes.
// Money is integer fils. Amount is the store's share moved; FromPending and
// FromAvailable (a refund or a hold) say where it came from, ToPending and
// ToAvailable (a won dispute's release) where it went; Commission is
// the platform commission reversed with it (refund, lost dispute);
// DisputeFee is a lost dispute's fee and FeeChargedTo who bears it.
// Available, Pending and Disputed are the balances after the change
// (available may be negative: a debt).
type WalletMoveEvent struct {
	WalletID         string     `json:"walletId"`
	StoreID          string     `json:"storeId"`
	StoreName        string     `json:"storeName"`
	StoreOwnerUserID string     `json:"storeOwnerUserId"`
	Kind             string     `json:"kind" enum:"refund|dispute_hold|dispute_release|dispute_loss"`
	OrderID          string     `json:"orderId"`
	RefundID         string     `json:"refundId,omitempty"`
	DisputeID        string     `json:"disputeId,omitempty"`
	TransactionIDs   []string   `json:"transactionIds"`
	Amount           money.Fils `json:"amountFils"`
	FromPending      money.Fils `json:"fromPendingFils,omitempty"`
	FromAvailable    money.Fils `json:"fromAvailableFils,omitempty"`
	ToPending        money.Fils `json:"toPendingFils,omitempty"`   // dispute_release: back to the held earning
	ToAvailable      money.Fils `json:"toAvailableFils,omitempty"` // dispute_release: back to available
	Commission       money.Fils `json:"commissionFils,omitempty"`
	DisputeFee       money.Fils `json:"disputeFeeFils,omitempty"`
	FeeChargedTo     string     `json:"feeChargedTo,omitempty" enum:"store|platform"`
	Available        money.Fils `json:"availableBalanceFils"`
	Pending          money.Fils `json:"pendingBalanceFils"`
	Disputed         money.Fils `json:"disputedBalanceFils"`
}
