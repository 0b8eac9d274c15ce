package payouts

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
)

type bankDetailsArgs struct {
	IBAN              string `json:"IBAN" op:"required,nonblank,max=64"`
	BankName          string `json:"bankName" op:"required,nonblank,max=200"`
	AccountHolderName string `json:"accountHolderName" op:"required,nonblank,max=200"`
}

type requestPayoutArgs struct {
	StoreID     string          `json:"storeId" op:"required,id=stores"`
	Amount      money.Fils      `json:"amount" op:"required,min=0.01"`
	BankDetails bankDetailsArgs `json:"bankDetails" op:"required"`
}

// payoutEvent is the event data of p's latest move.
func (p *payoutDoc) event(from, adminID string) contract.PayoutEvent {
	ev := contract.PayoutEvent{
		PayoutID: p.ID, StoreID: p.StoreID, StoreName: p.StoreName, WalletID: p.WalletID, StoreOwnerUserID: p.OwnerUserID,
		RequestedBy: p.RequestedBy, RequestedAmount: p.RequestedAmount, ProcessingFee: p.ProcessingFee, NetAmount: p.NetAmount,
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

// walletSettings are the wallet settings in force; a payout request is
// refused (FAILED_PRECONDITION) without an active configuration, and is
// UNAVAILABLE (safe to retry) while the configuration service is.
func (s *svc) walletSettings(ctx context.Context) (*walletSettings, error) {
	w, err := s.settings(ctx)
	if err != nil {
		return nil, err
	}
	s.lastSettings.Store(w)
	return w, nil
}

// requestPayout takes the amount out of the store's available balance at once
// (a payout transaction, pending) and records the request, with its
// payout.requested event, in one transaction. The amount must lie within the
// configuration's minimum and maximum payout and be covered by the available
// balance (FAILED_PRECONDITION otherwise, nothing written); the bank account
// must be a valid UAE IBAN.
func (s *svc) requestPayout(ctx context.Context, a *requestPayoutArgs) (string, error) {
	st := ops.StoreOf(ctx)
	iban, err := CheckUAEIBAN(a.BankDetails.IBAN)
	if err != nil {
		return "", apperr.Invalid("bankDetails.IBAN", "%v", err)
	}
	cfg, err := s.walletSettings(ctx)
	if err != nil {
		return "", err
	}
	if err := s.checkPayoutAmount(ctx, st.ID, a.Amount, cfg); err != nil {
		return "", err
	}
	caller := ops.Caller(ctx)
	walletID := WalletIDOf(st.ID)
	now := s.nowMs()
	p := payoutDoc{
		ID: ids.New("payouts"), StoreID: st.ID, WalletID: walletID, StoreName: st.Name, OwnerUserID: st.OwnerUserID,
		RequestedAmount: a.Amount, ProcessingFee: cfg.ProcessingFee, NetAmount: a.Amount - cfg.ProcessingFee,
		BankDetails: bankDetails{IBAN: iban, BankName: a.BankDetails.BankName, AccountHolderName: a.BankDetails.AccountHolderName},
		Status:      StatusRequested, RequestDate: now, RequestedBy: caller.Sub, TransactionID: ids.New("walletTransactions"),
		History:      []historyEntry{{Action: "requestPayout", To: StatusRequested, By: caller.Sub, At: now}},
		CreationTime: now, UpdatedAt: now,
	}
	sourceKey := "payout:" + p.ID
	d := Balances{Available: -a.Amount}
	err = s.tx(ctx, "the wallet", func(ctx context.Context) error {
		w, err := s.change(ctx, walletID, d, nil, nil)
		if err != nil {
			return err
		}
		if w == nil {
			return s.payoutShortOf(ctx, walletID, a.Amount, cfg)
		}
		if HandedOverSinceCheck(st.OwnerUserID, st.Version, w.OwnerUserID, w.StoreVersion) {
			return handedOverSinceCheck(st.ID)
		}
		if _, err := s.env.DB.Collection(payoutsColl).InsertOne(ctx, p); err != nil {
			return err
		}
		if err := s.countMove(ctx, &p, ""); err != nil {
			return err
		}
		t := txDoc{ID: p.TransactionID, WalletID: walletID, StoreID: st.ID, Type: TxPayout, Amount: a.Amount, Status: TxPending,
			Description: "Payout " + p.ID, SourceKey: sourceKey, CreatedAt: now, UpdatedAt: now,
			Metadata: map[string]string{"payoutId": p.ID, "requestedBy": caller.Sub, "processingFee": aedText(p.ProcessingFee), "netAmount": aedText(p.NetAmount)}}
		if _, err := s.env.DB.Collection(txColl).InsertOne(ctx, t); err != nil {
			return err
		}
		_, err = s.env.Outbox.Add(ctx, contract.TopicPayouts, contract.EventPayoutRequested, p.ID, p.event("", ""))
		return err
	})
	if err != nil {
		return "", err
	}
	s.env.Relay.Kick()
	return p.ID, nil
}

// checkPayoutAmount refuses an amount outside the configuration's bounds
// (FAILED_PRECONDITION, nothing written): below the minimum payout, above the
// maximum, or not above the processing fee. The message and details give the
// settings in force (AED) and the store's available balance, so the caller
// can pick an amount that passes from the answer alone.
func (s *svc) checkPayoutAmount(ctx context.Context, storeID string, amount money.Fils, cfg *walletSettings) error {
	var msg, reason string
	switch {
	case amount < cfg.MinPayout:
		msg, reason = fmt.Sprintf("amount: the minimum payout is %.2f AED", cfg.MinPayout.AED()), "below_minimum_payout"
	case amount > cfg.MaxPayout:
		msg, reason = fmt.Sprintf("amount: the maximum payout is %.2f AED", cfg.MaxPayout.AED()), "above_maximum_payout"
	case amount <= cfg.ProcessingFee:
		msg, reason = fmt.Sprintf("amount: must exceed the processing fee of %.2f AED", cfg.ProcessingFee.AED()), "not_above_fee"
	default:
		return nil
	}
	w, err := s.wallet(ctx, storeID)
	if err != nil {
		return err
	}
	var available money.Fils
	if w != nil {
		available = w.AvailableBalance
	}
	return apperr.New(apperr.FailedPrecondition, "%s (%.2f AED asked; payouts are from %.2f to %.2f AED, of which the processing fee of %.2f AED is kept; the store has %.2f AED available)",
		msg, amount.AED(), cfg.MinPayout.AED(), cfg.MaxPayout.AED(), cfg.ProcessingFee.AED(), available.AED()).
		WithDetails(map[string]any{
			"field": "amount", "reason": reason, "amount": amount.AED(), "minPayoutAmount": cfg.MinPayout.AED(), "maxPayoutAmount": cfg.MaxPayout.AED(),
			"processingFee": cfg.ProcessingFee.AED(), "availableBalance": available.AED(),
		})
}

// payoutShortOf explains why a payout request's amount was refused by the
// wallet (it must run in the request's transaction): the available balance
// does not cover it. When earnings are still held, it says so: how much is
// pending, the hold (pendingBalanceHoldDays) and when the oldest held
// earning is released, and that an administrator may release it earlier
// (adjustWalletBalance, move_pending_to_available).
func (s *svc) payoutShortOf(ctx context.Context, walletID string, amount money.Fils, cfg *walletSettings) error {
	w, err := s.walletByID(ctx, walletID)
	if err != nil || w == nil || w.AvailableBalance >= amount {
		if err == nil {
			err = s.shortOf(ctx, walletID, Balances{Available: -amount})
		}
		return err
	}
	details := map[string]any{
		"reason": "insufficient_balance", "balance": "available", "amount": amount.AED(),
		"availableBalance": w.AvailableBalance.AED(), "pendingBalance": w.PendingBalance.AED(), "pendingBalanceHoldDays": cfg.HoldDays,
	}
	msg := fmt.Sprintf("insufficient available balance: %.2f AED available, %.2f AED needed", w.AvailableBalance.AED(), amount.AED())
	if w.PendingBalance > 0 {
		msg += fmt.Sprintf("; %.2f AED pending: earnings are held %d days after delivery (pendingBalanceHoldDays)", w.PendingBalance.AED(), cfg.HoldDays)
		oldest, err := s.oldestHeld(ctx, walletID)
		if err != nil {
			return err
		}
		if oldest != nil {
			msg += fmt.Sprintf(", the oldest (%.2f AED) is released at %s", oldest.HeldRemaining.AED(), time.UnixMilli(oldest.ReleaseAt).UTC().Format(time.RFC3339))
			details["nextReleaseAt"], details["nextReleaseAmount"] = oldest.ReleaseAt, oldest.HeldRemaining.AED()
		}
		msg += "; an administrator may release held earnings earlier (admins.payoutOperations.adjustWalletBalance, move_pending_to_available)"
	}
	return apperr.New(apperr.FailedPrecondition, "%s", msg).WithDetails(details)
}

// oldestHeld is the wallet's oldest earning still held (part of it at
// least), nil when none is.
func (s *svc) oldestHeld(ctx context.Context, walletID string) (*txDoc, error) {
	var e txDoc
	err := s.env.DB.Collection(txColl).FindOne(ctx, bson.M{"walletId": walletID, "type": TxEarning, "status": TxPending, "heldRemaining": bson.M{"$gt": 0}},
		options.FindOne().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}})).Decode(&e)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

type payoutArgs struct {
	PayoutID        string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID     string  `json:"adminUserId" op:"required,nonblank"`
	AdminNotes      *string `json:"adminNotes" op:"max=2000,multiline"`
	ConfirmHandover *bool   `json:"confirmHandover"`
}

type rejectArgs struct {
	PayoutID        string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID     string  `json:"adminUserId" op:"required,nonblank"`
	RejectionReason string  `json:"rejectionReason" op:"required,nonblank,max=1000,multiline"`
	AdminNotes      *string `json:"adminNotes" op:"max=2000,multiline"`
}

type processingArgs struct {
	PayoutID             string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID          string  `json:"adminUserId" op:"required,nonblank"`
	ProcessingMethod     string  `json:"processingMethod" op:"required,enum=bank_transfer|manual|third_party"`
	TransactionReference *string `json:"transactionReference" op:"nonblank,max=200"`
	AdminNotes           *string `json:"adminNotes" op:"max=2000,multiline"`
	ConfirmHandover      *bool   `json:"confirmHandover"`
}

type completeArgs struct {
	PayoutID             string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID          string  `json:"adminUserId" op:"required,nonblank"`
	TransactionReference *string `json:"transactionReference" op:"nonblank,max=200"`
	AdminNotes           *string `json:"adminNotes" op:"max=2000,multiline"`
	ConfirmHandover      *bool   `json:"confirmHandover"`
}

type failArgs struct {
	PayoutID       string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID    string  `json:"adminUserId" op:"required,nonblank"`
	FailureReason  string  `json:"failureReason" op:"required,nonblank,max=1000,multiline"`
	AdminNotes     *string `json:"adminNotes" op:"max=2000,multiline"`
	RestoreBalance *bool   `json:"restoreBalance"`
}

// moveArgs are what a move gives: an administrator's (adminID), or the
// handover's (adminID handoverActor).
type moveArgs struct {
	move                       Move
	payoutID, adminID          string
	notes, reason, method, ref *string
	restore                    bool
	// confirmHandover is the administrator's confirmation that a payout of
	// a store handed over since its request is to be paid on all the same.
	confirmHandover bool
	// ownerNow is the store's owner as the catalog answered just before the
	// move's transaction (asked for the moves that pay out); ownerAsked says
	// it was asked.
	ownerNow   string
	ownerAsked bool
}

func (s *svc) approvePayout(ctx context.Context, a *payoutArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{move: MoveApprove, payoutID: a.PayoutID, adminID: a.AdminUserID, notes: a.AdminNotes,
		confirmHandover: isTrue(a.ConfirmHandover)})
}

func isTrue(b *bool) bool { return b != nil && *b }

func (s *svc) rejectPayout(ctx context.Context, a *rejectArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{move: MoveReject, payoutID: a.PayoutID, adminID: a.AdminUserID, notes: a.AdminNotes, reason: &a.RejectionReason})
}

func (s *svc) markPayoutAsProcessing(ctx context.Context, a *processingArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{move: MoveProcessing, payoutID: a.PayoutID, adminID: a.AdminUserID, notes: a.AdminNotes,
		method: &a.ProcessingMethod, ref: a.TransactionReference, confirmHandover: isTrue(a.ConfirmHandover)})
}

func (s *svc) completePayout(ctx context.Context, a *completeArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{move: MoveComplete, payoutID: a.PayoutID, adminID: a.AdminUserID, notes: a.AdminNotes, ref: a.TransactionReference,
		confirmHandover: isTrue(a.ConfirmHandover)})
}

func (s *svc) markPayoutAsFailed(ctx context.Context, a *failArgs) (*Payout, error) {
	restore := a.RestoreBalance != nil && *a.RestoreBalance
	return s.movePayout(ctx, moveArgs{move: MoveFail, payoutID: a.PayoutID, adminID: a.AdminUserID, notes: a.AdminNotes,
		reason: &a.FailureReason, restore: restore})
}

// movePayout makes an administrator's move of the table of section 3.1 in one
// transaction (applyMove). A move that pays out (approve, mark processing,
// complete) first asks the catalog whose store it is now (handover.go):
// a payout of a store handed over since its request needs confirmHandover.
// It returns the payout after the move.
func (s *svc) movePayout(ctx context.Context, m moveArgs) (*Payout, error) {
	if PaysOut(m.move) {
		var err error
		if m.ownerNow, m.ownerAsked, err = s.ownerNowOfPayout(ctx, m.payoutID); err != nil {
			return nil, err
		}
	}
	var out Payout
	err := s.tx(ctx, "the payout", func(ctx context.Context) error {
		p, w, err := s.applyMove(ctx, m)
		if err != nil {
			return err
		}
		out = p.detail(w, true)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	_ = s.nameStores(ctx, []*PayoutItem{&out.PayoutItem}, false) // committed: never an error now
	return &out, nil
}

// applyMove makes one move of the table of section 3.1 (payoutstate.go) as
// one conditional update on the payout's status (of two concurrent moves of
// one payout, one wins; the other finds the status changed:
// FAILED_PRECONDITION), with its effects on the wallet and the payout's
// wallet transaction, its history entry and its event. It must run in a
// transaction (an administrator's, or the consumer's for a handover), and
// returns the payout after the move and the wallet.
func (s *svc) applyMove(ctx context.Context, m moveArgs) (*payoutDoc, *walletDoc, error) {
	var out *payoutDoc
	var wallet *walletDoc
	err := func() error {
		now := s.nowMs()
		to := m.move.To()
		set := bson.M{"status": to, "updatedAt": now}
		h := historyEntry{Action: string(m.move), To: to, By: m.adminID, At: now, Notes: m.notes}
		switch m.move {
		case MoveApprove:
			set["approvedDate"], set["approvedBy"] = now, m.adminID
		case MoveReject:
			set["rejectedDate"], set["rejectionReason"], set["balanceRestored"] = now, *m.reason, true
			h.Reason = m.reason
		case MoveProcessing:
			set["processingDate"], set["processingMethod"] = now, *m.method
			h.Method = m.method
			if m.ref != nil {
				set["transactionReference"] = *m.ref
				h.Reference = m.ref
			}
		case MoveComplete:
			set["completedDate"] = now
			if m.ref != nil { // a given reference overrides the one recorded before
				set["transactionReference"] = *m.ref
				h.Reference = m.ref
			}
		case MoveFail:
			set["failedDate"], set["failureReason"], set["balanceRestored"] = now, *m.reason, m.restore
			restore := m.restore
			h.Reason, h.RestoreBalance = m.reason, &restore
		case MoveHandover:
			set["rejectedDate"], set["rejectionReason"], set["balanceRestored"], set["handedOverAt"] = now, *m.reason, true, now
			h.Reason = m.reason
		}
		if m.notes != nil {
			set["adminNotes"] = *m.notes
		}
		// Read, check, then write only if the status is still the one read: of
		// two concurrent moves one wins, the other is refused.
		var read payoutDoc
		err := s.env.DB.Collection(payoutsColl).FindOne(ctx, bson.M{"_id": m.payoutID},
			options.FindOne().SetProjection(bson.M{"status": 1, "storeId": 1, "ownerUserId": 1, "requestedBy": 1, "handedOverAt": 1})).Decode(&read)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "payout %s does not exist", m.payoutID)
		}
		if err != nil {
			return err
		}
		from := read.Status
		if !CanMove(m.move, from) {
			return refusal(m.move, m.payoutID, from)
		}
		if PaysOut(m.move) {
			if !m.ownerAsked { // created meanwhile: the store's owner was not asked
				return changedMeanwhile(m.payoutID)
			}
			if HandedOver(read.owner(), m.ownerNow, read.HandedOverAt != nil) {
				if !m.confirmHandover {
					return handedOverRefusal(m.move, &read, m.ownerNow)
				}
				confirmed := true
				h.HandoverConfirmed = &confirmed
				if read.HandedOverAt == nil {
					set["handedOverAt"] = now
				}
			}
		}
		h.From = from
		var p payoutDoc
		err = s.env.DB.Collection(payoutsColl).FindOneAndUpdate(ctx,
			bson.M{"_id": m.payoutID, "status": from},
			bson.M{"$set": set, "$push": bson.M{"history": h}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&p)
		if store.IsNotFound(err) {
			return changedMeanwhile(m.payoutID)
		}
		if err != nil {
			return err
		}

		if err := s.countMove(ctx, &p, from); err != nil {
			return err
		}

		var inc, walletSet bson.M
		var d Balances
		if RestoresBalance(m.move, m.restore) {
			d = Balances{Available: p.RequestedAmount}
		}
		if m.move == MoveComplete {
			inc, walletSet = bson.M{"totalPayouts": p.RequestedAmount}, bson.M{"lastPayoutDate": now}
		}
		w, err := s.walletByID(ctx, p.WalletID)
		if err != nil {
			return err
		}
		if d != (Balances{}) || inc != nil {
			if w, err = s.change(ctx, p.WalletID, d, inc, walletSet); err != nil {
				return err
			}
		}
		if status := TxStatusAfter(m.move, m.restore); status != "" {
			res, err := s.env.DB.Collection(txColl).UpdateOne(ctx,
				bson.M{"_id": p.TransactionID, "type": TxPayout, "status": bson.M{"$in": bson.A{TxPending, TxCompleted}}},
				bson.M{"$set": bson.M{"status": status, "updatedAt": now}})
			if err != nil {
				return err
			}
			if res.MatchedCount != 1 {
				// The ledger and the payout disagree: aborting keeps the move
				// from leaving the wallet and its ledger apart.
				s.env.Logger.ErrorContext(ctx, "payouts: the payout's wallet transaction is missing or already settled; move aborted",
					"payoutId", p.ID, "transactionId", p.TransactionID, "move", string(m.move), "matched", res.MatchedCount)
				return apperr.New(apperr.Internal, "payout %s: its wallet transaction %s is missing or not open; nothing was changed", p.ID, p.TransactionID)
			}
		}
		eventAdmin := m.adminID
		if m.move == MoveHandover {
			eventAdmin = "" // no administrator moved it
		}
		if _, err := s.env.Outbox.Add(ctx, contract.TopicPayouts, m.move.Event(), p.ID, p.event(from, eventAdmin)); err != nil {
			return err
		}
		out, wallet = &p, w
		return nil
	}()
	if err != nil {
		return nil, nil, err
	}
	return out, wallet, nil
}

// changedMeanwhile answers a move whose payout changed between its read and
// its write.
func changedMeanwhile(payoutID string) error {
	return apperr.New(apperr.FailedPrecondition, "payout %s changed meanwhile; read it again", payoutID).
		WithDetails(map[string]any{"reason": "payout_status"})
}

// refusal is the answer to a move the payout's status does not allow.
func refusal(m Move, payoutID, status string) error {
	need := m.From()
	want := need[0]
	if len(need) > 1 {
		want = need[0] + " or " + need[1]
	}
	return apperr.New(apperr.FailedPrecondition, "payout %s is %s: %s needs it %s", payoutID, status, m, want).
		WithDetails(map[string]any{"reason": "payout_status", "status": status})
}

type pendingArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
	Limit   *int    `json:"limit" op:"min=1,max=500"`
}

// defaultPendingLimit is getPendingPayouts' limit when none is given.
const defaultPendingLimit = 50

// getPendingPayouts is the administrators' work queue: open payouts
// (requested, approved, processing), oldest request first, with the store's
// owner and wallet figures.
func (s *svc) getPendingPayouts(ctx context.Context, a *pendingArgs) ([]PayoutItem, error) {
	limit := defaultPendingLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	filter := bson.M{"status": bson.M{"$in": OpenStatuses}}
	if a.StoreID != nil {
		filter["storeId"] = *a.StoreID
	}
	cur, err := s.env.DB.Collection(payoutsColl).Find(ctx, filter,
		options.Find().SetSort(bson.D{{Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)).SetProjection(bson.M{"history": 0}))
	if err != nil {
		return nil, err
	}
	var ps []payoutDoc
	if err := cur.All(ctx, &ps); err != nil {
		return nil, err
	}
	wallets, err := s.walletsOf(ctx, ps)
	if err != nil {
		return nil, err
	}
	out := make([]PayoutItem, len(ps))
	items := make([]*PayoutItem, len(ps))
	for i := range ps {
		out[i] = ps[i].item(wallets[ps[i].WalletID])
		items[i] = &out[i]
	}
	if err := s.nameStores(ctx, items, true); err != nil {
		return nil, err
	}
	return out, nil
}

// walletsOf reads the wallets of payouts in one find, by id.
func (s *svc) walletsOf(ctx context.Context, ps []payoutDoc) (map[string]*walletDoc, error) {
	idSet := map[string]bool{}
	var list []string
	for _, p := range ps {
		if !idSet[p.WalletID] {
			idSet[p.WalletID] = true
			list = append(list, p.WalletID)
		}
	}
	out := map[string]*walletDoc{}
	if len(list) == 0 {
		return out, nil
	}
	cur, err := s.env.DB.Collection(walletsColl).Find(ctx, bson.M{"_id": bson.M{"$in": list}})
	if err != nil {
		return nil, err
	}
	var ws []walletDoc
	if err := cur.All(ctx, &ws); err != nil {
		return nil, err
	}
	for i := range ws {
		out[ws[i].ID] = &ws[i]
	}
	return out, nil
}

type getPayoutArgs struct {
	PayoutID string `json:"payoutId" op:"required,id=payouts"`
}

func (s *svc) getPayout(ctx context.Context, a *getPayoutArgs) (*Payout, error) {
	var p payoutDoc
	err := s.env.DB.Collection(payoutsColl).FindOne(ctx, bson.M{"_id": a.PayoutID}).Decode(&p)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w, err := s.walletByID(ctx, p.WalletID)
	if err != nil {
		return nil, err
	}
	d := p.detail(w, true)
	if err := s.nameStores(ctx, []*PayoutItem{&d.PayoutItem}, true); err != nil {
		return nil, err
	}
	return &d, nil
}

// listPayouts pages the store's payouts, newest first; admin notes are for
// administrators only.
func (s *svc) listPayouts(ctx context.Context, a *storePageArgs) (page.Result[Payout], error) {
	st := ops.StoreOf(ctx)
	r, err := page.Find(ctx, s.env.DB.Collection(payoutsColl), bson.M{"storeId": st.ID}, page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts,
		func(p *payoutDoc) (any, string) { return p.CreationTime, p.ID })
	if err != nil {
		return page.Result[Payout]{}, err
	}
	w, err := s.wallet(ctx, st.ID)
	if err != nil {
		return page.Result[Payout]{}, err
	}
	admin := ops.Caller(ctx).IsAdmin()
	out := page.Map(r, func(p *payoutDoc) Payout { return p.detail(w, admin) })
	if err := s.nameStoresOf(ctx, out.Page, true); err != nil {
		return page.Result[Payout]{}, err
	}
	return out, nil
}

type dateRangeArgs struct {
	StartDate int64 `json:"startDate" op:"required,min=0"`
	EndDate   int64 `json:"endDate" op:"required,min=0"`
}

type statisticsArgs struct {
	DateRange *dateRangeArgs `json:"dateRange"`
}

// getPayoutStatistics computes the figures in Go (the embedded engine has no
// aggregation pipeline; see Summarize for their definitions): from the
// running totals (totals.go), or, with a dateRange, from one indexed find of
// the payouts requested within it (inclusive).
func (s *svc) getPayoutStatistics(ctx context.Context, a *statisticsArgs) (*Statistics, error) {
	now := s.now()
	if a.DateRange == nil {
		sm, err := s.summaryFromTotals(ctx, now)
		if err != nil {
			return nil, err
		}
		st := sm.statistics()
		return &st, nil
	}
	r := a.DateRange
	if r.EndDate < r.StartDate {
		return nil, apperr.Invalid("dateRange.endDate", "must not be before startDate")
	}
	filter := bson.M{"status": bson.M{"$in": bson.A{StatusRequested, StatusApproved, StatusProcessing, StatusCompleted}},
		"requestDate": bson.M{"$gte": r.StartDate, "$lte": r.EndDate}}
	cur, err := s.env.DB.Collection(payoutsColl).Find(ctx, filter, options.Find().SetProjection(bson.M{
		"storeId": 1, "storeName": 1, "status": 1, "requestedAmount": 1, "requestDate": 1, "completedDate": 1}))
	if err != nil {
		return nil, err
	}
	var ps []payoutDoc
	if err := cur.All(ctx, &ps); err != nil {
		return nil, err
	}
	in := make([]StatPayout, len(ps))
	for i, p := range ps {
		in[i] = StatPayout{StoreID: p.StoreID, StoreName: p.StoreName, Status: p.Status, Amount: p.RequestedAmount, RequestDate: p.RequestDate}
		if p.CompletedDate != nil {
			in[i].CompletedDate = *p.CompletedDate
		}
	}
	st := ComputeStatistics(in, now)
	return &st, nil
}
