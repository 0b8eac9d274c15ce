package domain

import (
	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
)

// PayoutRequest is a store owner's payout request as the operation read it.
type PayoutRequest struct {
	ID, TransactionID               string // new ids
	StoreID, StoreName, OwnerUserID string // the store as the access check read it
	RequestedBy                     string // the caller
	RequestedByName                 string // the caller's name (RequesterName), "" when unknown
	Amount                          money.Fils
	Bank                            BankDetails // its IBAN normalised (CheckUAEIBAN)
}

// NewPayout is a requested payout and its wallet transaction (pending: the
// amount leaves the available balance at once), at now, with the settings'
// processing fee kept from the amount.
// ActionRequest is the history's action of the request: the one move by the
// store's owner (the others are administrators' or the system's).
const ActionRequest = "requestPayout"

func NewPayout(r PayoutRequest, cfg *WalletSettings, now int64) (*Payout, *Transaction) {
	walletID := WalletIDOf(r.StoreID)
	p := &Payout{
		ID: r.ID, StoreID: r.StoreID, WalletID: walletID, StoreName: r.StoreName, OwnerUserID: r.OwnerUserID,
		RequestedAmount: r.Amount, ProcessingFee: cfg.ProcessingFee, NetAmount: r.Amount - cfg.ProcessingFee,
		BankDetails: r.Bank, Status: StatusRequested, RequestDate: now, RequestedBy: r.RequestedBy, RequestedByName: r.RequestedByName, TransactionID: r.TransactionID,
		History:      []HistoryEntry{{Action: ActionRequest, To: StatusRequested, By: r.RequestedBy, ByName: r.RequestedByName, At: now}},
		CreationTime: now, UpdatedAt: now,
	}
	t := &Transaction{ID: p.TransactionID, WalletID: walletID, StoreID: r.StoreID, Type: TxPayout, Amount: r.Amount, Status: TxPending,
		Description: "Payout " + p.ID, SourceKey: "payout:" + p.ID, CreatedAt: now, UpdatedAt: now,
		Metadata: map[string]string{"payoutId": p.ID, "requestedBy": r.RequestedBy, "processingFee": AEDText(p.ProcessingFee), "netAmount": AEDText(p.NetAmount)}}
	return p, t
}

// RequesterName is the name a payout request records for its requester
// (sub): the name their token states, else the store owner's name the wallet
// holds when the requester is that owner, else "" (docs/adr/0168).
func RequesterName(tokenName, sub string, w *Wallet) string {
	if tokenName != "" {
		return tokenName
	}
	if w != nil && w.OwnerUserID == sub {
		return w.OwnerName
	}
	return ""
}

// MoveArgs are what a move gives: an administrator's (AdminID), or the
// handover's (AdminID HandoverActor).
type MoveArgs struct {
	Move    Move
	AdminID string
	// AdminName is the acting administrator's name (ops.ActingName: "" when
	// the token states none), recorded beside AdminID (docs/adr/0168).
	AdminName                  string
	Notes, Reason, Method, Ref *string
	Restore                    bool
	// ConfirmHandover is the administrator's confirmation that a payout of
	// a store handed over since its request is to be paid on all the same.
	ConfirmHandover bool
	// OwnerNow is the store's owner as the catalog answered just before the
	// move's transaction (asked for the moves that pay out); OwnerAsked says
	// it was asked.
	OwnerNow   string
	OwnerAsked bool
	// TransferID, on a move that records the processor's transfer
	// (sendPayoutThroughProcessor's processing, the processor's completion
	// or failure: transfer.go), is its id. Such a move pays nothing out by
	// itself: who the store's owner is was checked when the transfer was
	// asked.
	TransferID string
	// TransferStatus is the payout's transfer as the payments service
	// answered just before a move by hand of a payout sent through the
	// processor ("" when it has none); TransferAsked says it was asked.
	TransferStatus string
	TransferAsked  bool
}

// CheckFirst makes the checks of Apply that need nothing but p as read and
// m, without changing p: the payout's status allows the move
// (payout_status), and a move by hand that pays out a payout of a store
// handed over since its request has the administrator's confirmation
// (store_handed_over; m.OwnerNow asked before). A caller with a step it
// cannot undo before the move's transaction (voiding the payout's transfer)
// makes them first; Apply makes them again on the payout it saves.
func (p *Payout) CheckFirst(m MoveArgs) error {
	if !CanMove(m.Move, p.Status) {
		return Refusal(m.Move, p.ID, p.Status)
	}
	if m.TransferID == "" && PaysOut(m.Move) {
		q := *p // checkOwner flags a confirmed handover: on a copy
		_, err := q.checkOwner(m, 0)
		return err
	}
	return nil
}

// HandoverActor is the history's "by" of what a handover did to a payout:
// the payouts service, on the catalog's word.
const HandoverActor = "system"

// Apply makes the move of the table of section 3.1 (payoutstate.go) on p at
// now: a move the payout's status does not allow is refused
// (FAILED_PRECONDITION payout_status); a move that pays out a payout of a
// store handed over since its request needs the administrator's
// confirmation (FAILED_PRECONDITION store_handed_over). It records the move's
// dates and reasons, the administrator's notes and a history entry, and
// returns the status the payout left.
func (p *Payout) Apply(m MoveArgs, now int64) (from string, err error) {
	from = p.Status
	if !CanMove(m.Move, from) {
		return "", Refusal(m.Move, p.ID, from)
	}
	h := HistoryEntry{Action: string(m.Move), From: from, To: m.Move.To(), By: m.AdminID, ByName: m.AdminName, At: now, Notes: m.Notes}
	if m.TransferID != "" {
		if p.TransferID != "" && p.TransferID != m.TransferID {
			return "", OtherTransfer(p, m.TransferID)
		}
		p.TransferID = m.TransferID
	} else {
		if err := p.checkByHand(m); err != nil {
			return "", err
		}
		if PaysOut(m.Move) {
			confirmed, err := p.checkOwner(m, now)
			if err != nil {
				return "", err
			}
			if confirmed {
				h.HandoverConfirmed = &confirmed
			}
		}
	}
	switch m.Move {
	case MoveApprove:
		p.ApprovedDate, p.ApprovedBy, p.ApprovedByName = &now, m.AdminID, m.AdminName
	case MoveReject:
		p.RejectedDate, p.RejectionReason, p.BalanceRestored = &now, *m.Reason, true
		h.Reason = m.Reason
	case MoveProcessing:
		p.ProcessingDate, p.ProcessingMethod = &now, *m.Method
		h.Method = m.Method
		if m.Ref != nil {
			p.TransactionReference = *m.Ref
			h.Reference = m.Ref
		}
	case MoveComplete:
		p.CompletedDate = &now
		if m.Ref != nil { // a given reference overrides the one recorded before
			p.TransactionReference = *m.Ref
			h.Reference = m.Ref
		}
	case MoveFail:
		p.FailedDate, p.FailureReason, p.BalanceRestored = &now, *m.Reason, m.Restore
		restore := m.Restore
		h.Reason, h.RestoreBalance = m.Reason, &restore
	case MoveHandover:
		p.RejectedDate, p.RejectionReason, p.BalanceRestored, p.HandedOverAt = &now, *m.Reason, true, &now
		h.Reason = m.Reason
	}
	if m.Notes != nil {
		p.AdminNotes = *m.Notes
	}
	p.Status, p.UpdatedAt = m.Move.To(), now
	p.History = append(p.History, h)
	return from, nil
}

// checkOwner is the check of a move that pays out: the store's owner now
// (m.OwnerNow, asked) is the one who requested it, or the administrator
// confirmed paying a store handed over since (confirmed: then the payout is
// flagged handed over, once).
func (p *Payout) checkOwner(m MoveArgs, now int64) (confirmed bool, err error) {
	if !m.OwnerAsked { // created meanwhile: the store's owner was not asked
		return false, ChangedMeanwhile(p.ID)
	}
	if !HandedOver(p.Owner(), m.OwnerNow, p.HandedOverAt != nil) {
		return false, nil
	}
	if !m.ConfirmHandover {
		return false, HandedOverRefusal(m.Move, p, m.OwnerNow)
	}
	if p.HandedOverAt == nil {
		p.HandedOverAt = &now
	}
	return true, nil
}

// HandoverAction is what the handover of its store to ownerNow does to p:
// nothing when ownerNow requested it (or is unknown), else OnHandover of its
// status.
func (p *Payout) HandoverAction(ownerNow string) HandoverAction {
	if ownerNow == "" || p.Owner() == ownerNow {
		return HandoverNone
	}
	return OnHandover(p.Status)
}

// FlagHandover flags an approved or processing payout of a store handed to
// another owner (handedOverAt, a history entry), once: false when it is
// flagged already or not open.
func (p *Payout) FlagHandover(now int64) bool {
	if p.HandedOverAt != nil || OnHandover(p.Status) != HandoverFlag {
		return false
	}
	reason := ReasonHandedOver
	p.HandedOverAt, p.UpdatedAt = &now, now
	p.History = append(p.History, HistoryEntry{Action: string(MoveHandover), From: p.Status, To: p.Status, By: HandoverActor, At: now, Reason: &reason})
	return true
}

// Event is the event data of p's latest move, from status from, by
// administrator adminID named adminName ("" for none).
func (p *Payout) Event(from, adminID, adminName string) contract.PayoutEvent {
	ev := contract.PayoutEvent{
		PayoutID: p.ID, StoreID: p.StoreID, StoreName: p.StoreName, WalletID: p.WalletID, StoreOwnerUserID: p.OwnerUserID,
		RequestedBy: p.RequestedBy, RequestedByName: p.RequestedByName, AdminName: adminName, RequestedAmount: p.RequestedAmount, ProcessingFee: p.ProcessingFee, NetAmount: p.NetAmount,
		Status: p.Status, From: from, AdminUserID: adminID, ProcessingMethod: p.ProcessingMethod,
		TransactionReference: p.TransactionReference, BalanceRestored: p.BalanceRestored,
	}
	switch p.Status {
	case StatusCancelled:
		ev.Reason = p.RejectionReason
	case StatusFailed:
		ev.Reason = p.FailureReason
	}
	return ev
}

// ChangedMeanwhile answers a move whose payout changed between its read and
// its write.
func ChangedMeanwhile(payoutID string) error {
	return apperr.New(apperr.FailedPrecondition, "payout %s changed meanwhile; read it again", payoutID).
		WithDetails(map[string]any{"reason": "payout_status"})
}

// Refusal is the answer to a move the payout's status does not allow.
func Refusal(m Move, payoutID, status string) error {
	need := m.From()
	want := need[0]
	if len(need) > 1 {
		want = need[0] + " or " + need[1]
	}
	return apperr.New(apperr.FailedPrecondition, "payout %s is %s: %s needs it %s", payoutID, status, m, want).
		WithDetails(map[string]any{"reason": "payout_status", "status": status})
}

// PayoutNotFound answers a move of a payout that does not exist.
func PayoutNotFound(payoutID string) error {
	return apperr.New(apperr.NotFound, "payout %s does not exist", payoutID)
}

// HandedOverRefusal answers a move that pays out a payout of a store handed
// over since its request, without the administrator's confirmation.
func HandedOverRefusal(m Move, p *Payout, ownerNow string) error {
	now := "has no owner in the catalog"
	if ownerNow != "" {
		now = "is " + ownerNow + "'s"
	}
	stop := "reject it (rejectPayout)"
	if m != MoveApprove {
		stop = "mark it failed (markPayoutAsFailed)"
	}
	details := map[string]any{"reason": "store_handed_over", "requestedBy": p.RequestedBy, "ownerUserIdAtRequest": p.Owner(),
		"storeOwnerUserId": ownerNow, "argument": "confirmHandover"}
	if p.HandedOverAt != nil {
		details["handedOverAt"] = *p.HandedOverAt
	}
	return apperr.New(apperr.FailedPrecondition,
		"payout %s was requested by %s, the owner of store %s then, to their bank account; the store %s now (handed over): "+
			"to pay it all the same call %s again with confirmHandover: true, or %s",
		p.ID, p.Owner(), p.StoreID, now, m, stop).WithDetails(details)
}

// HandedOverSinceCheckRefusal answers a payout request whose store was
// handed to another owner between the caller's access check and the
// request's transaction.
func HandedOverSinceCheckRefusal(storeID string) error {
	return apperr.New(apperr.PermissionDenied, "stores.payouts.requestPayout is for the store's owner: store %s was handed to another owner", storeID).
		WithDetails(map[string]any{"reason": "store_handed_over"})
}
