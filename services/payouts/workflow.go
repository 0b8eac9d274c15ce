package payouts

import (
	"context"
	"errors"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
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
	// SaveBankAccount: save bankDetails as the store's bank account too.
	SaveBankAccount *bool `json:"saveBankAccount"`
}

// walletSettings are the wallet settings in force; a payout request is
// refused (FAILED_PRECONDITION) without an active configuration, and is
// UNAVAILABLE (safe to retry) while the configuration service is.
func (s *svc) walletSettings(ctx context.Context) (*domain.WalletSettings, error) {
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
	bank, err := checkBank(a.BankDetails)
	if err != nil {
		return "", err
	}
	cfg, err := s.walletSettings(ctx)
	if err != nil {
		return "", err
	}
	// A wallet in debt (refunds or disputes took more than it held) can
	// request no payout: said before the amount rules, so the answer names
	// the debt (docs/adr/0147). The transaction below refuses it too.
	w, err := s.wallet(ctx, st.ID)
	if err != nil {
		return "", err
	} else if err := domain.InDebt(w); err != nil {
		return "", err
	}
	if err := cfg.CheckAmount(a.Amount, func() (money.Fils, error) {
		w, err := s.wallet(ctx, st.ID)
		if w == nil || err != nil {
			return 0, err
		}
		return w.AvailableBalance, nil
	}); err != nil {
		return "", err
	}
	caller := ops.Caller(ctx)
	requester := domain.RequesterName(caller.Name, caller.Sub, w)
	if requester == "" && caller.Sub == st.OwnerUserID {
		requester = s.ownerNameOf(ctx, st.ID)
	}
	walletID := domain.WalletIDOf(st.ID)
	p, t := domain.NewPayout(domain.PayoutRequest{
		ID: ids.New("payouts"), TransactionID: ids.New("walletTransactions"), StoreID: st.ID, StoreName: st.Name, OwnerUserID: st.OwnerUserID,
		RequestedBy: caller.Sub, RequestedByName: requester, Amount: a.Amount,
		Bank: bank,
	}, cfg, s.nowMs())
	d := domain.Balances{Available: -a.Amount}
	err = s.tx(ctx, "the wallet", func(ctx context.Context) error {
		var read *domain.Wallet // as read, when it could not cover the amount
		_, err := s.changeWallet(ctx, walletID, domain.StatementMove{Kind: domain.KindPayoutRequest, Description: "Payout " + p.ID + " requested",
			Refs: domain.StatementRefs{PayoutID: p.ID, TransactionID: t.ID}}, func(w *domain.Wallet) error {
			before := *w
			if err := w.Change(d, s.nowMs()); err != nil {
				read = &before
				return err
			}
			if domain.HandedOverSinceCheck(st.OwnerUserID, st.Version, w.OwnerUserID, w.StoreVersion) {
				return domain.HandedOverSinceCheckRefusal(st.ID)
			}
			return nil
		})
		if read != nil || errors.Is(err, domain.ErrNoWallet) {
			return s.payoutShortOf(ctx, walletID, read, a.Amount, cfg)
		}
		if err != nil {
			return err
		}
		if err := s.payouts.Insert(ctx, p); err != nil {
			return err
		}
		if err := s.totals.Count(ctx, p, ""); err != nil {
			return err
		}
		if err := s.ledger.Insert(ctx, t); err != nil {
			return err
		}
		if isTrue(a.SaveBankAccount) {
			if _, err := s.saveBankAccount(ctx, bank); err != nil {
				return err
			}
		}
		_, err = s.env.Outbox.Add(ctx, contract.TopicPayouts, contract.EventPayoutRequested, p.ID, p.Event("", "", ""))
		return err
	})
	if err != nil {
		return "", err
	}
	s.env.Relay.Kick()
	return p.ID, nil
}

// payoutShortOf explains why a payout request's amount was refused by the
// wallet w as read in the request's transaction (nil: not open):
// domain.PayoutShortOf, with the oldest earning still held.
func (s *svc) payoutShortOf(ctx context.Context, walletID string, w *domain.Wallet, amount money.Fils, cfg *domain.WalletSettings) error {
	var oldest *domain.Transaction
	if w != nil && w.AvailableBalance < amount && w.PendingBalance > 0 {
		var err error
		if oldest, err = s.ledger.OldestHeld(ctx, walletID); err != nil {
			return err
		}
	}
	return domain.PayoutShortOf(walletID, w, amount, cfg, oldest)
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

// moveArgs are an administrator's move of a payout.
type moveArgs struct {
	domain.MoveArgs
	payoutID string
}

func (s *svc) approvePayout(ctx context.Context, a *payoutArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{payoutID: a.PayoutID, MoveArgs: domain.MoveArgs{Move: domain.MoveApprove, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes,
		ConfirmHandover: isTrue(a.ConfirmHandover)}})
}

func isTrue(b *bool) bool { return b != nil && *b }

func (s *svc) rejectPayout(ctx context.Context, a *rejectArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{payoutID: a.PayoutID, MoveArgs: domain.MoveArgs{Move: domain.MoveReject, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes,
		Reason: &a.RejectionReason}})
}

func (s *svc) markPayoutAsProcessing(ctx context.Context, a *processingArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{payoutID: a.PayoutID, MoveArgs: domain.MoveArgs{Move: domain.MoveProcessing, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes,
		Method: &a.ProcessingMethod, Ref: a.TransactionReference, ConfirmHandover: isTrue(a.ConfirmHandover)}})
}

func (s *svc) completePayout(ctx context.Context, a *completeArgs) (*Payout, error) {
	return s.movePayout(ctx, moveArgs{payoutID: a.PayoutID, MoveArgs: domain.MoveArgs{Move: domain.MoveComplete, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes,
		Ref: a.TransactionReference, ConfirmHandover: isTrue(a.ConfirmHandover)}})
}

func (s *svc) markPayoutAsFailed(ctx context.Context, a *failArgs) (*Payout, error) {
	restore := a.RestoreBalance != nil && *a.RestoreBalance
	return s.movePayout(ctx, moveArgs{payoutID: a.PayoutID, MoveArgs: domain.MoveArgs{Move: domain.MoveFail, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes,
		Reason: &a.FailureReason, Restore: restore}})
}

// movePayout makes an administrator's move of the table of section 3.1 in one
// transaction (applyMove). A move that pays out (approve, mark processing,
// complete) first asks the catalog whose store it is now (handover.go):
// a payout of a store handed over since its request needs confirmHandover.
// It returns the payout after the move.
func (s *svc) movePayout(ctx context.Context, m moveArgs) (*Payout, error) {
	if domain.PaysOut(m.Move) {
		var err error
		if m.OwnerNow, m.OwnerAsked, err = s.ownerNowOfPayout(ctx, m.payoutID); err != nil {
			return nil, err
		}
	}
	// A payout sent through the processor: its transfer last, after the
	// checks that need no transaction (transfers.go: a refused move voids
	// nothing).
	if err := s.transferOfPayout(ctx, m.payoutID, &m.MoveArgs); err != nil {
		return nil, err
	}
	var out Payout
	err := s.tx(ctx, "the payout", func(ctx context.Context) error {
		p, w, err := s.applyMove(ctx, m.payoutID, m.MoveArgs)
		if err != nil {
			return err
		}
		out = payoutDetail(p, w, true)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	_ = s.nameStores(ctx, []*PayoutItem{&out.PayoutItem}, false) // committed: never an error now
	return &out, nil
}

// applyMove makes one move of a payout (domain.Payout.Apply, saved on the
// condition that its status is still the one read: of two concurrent moves
// of one payout, one wins; the other is FAILED_PRECONDITION), with its
// effects on the wallet (domain.Wallet.SettleMove) and the payout's wallet
// transaction (domain.TxStatusAfter), the running totals and its event. It
// runs in the caller's transaction (an administrator's, or the consumer's for
// a handover), and returns the payout after the move and the wallet.
func (s *svc) applyMove(ctx context.Context, payoutID string, m domain.MoveArgs) (*domain.Payout, *domain.Wallet, error) {
	now := s.nowMs()
	var from string
	p, err := s.payouts.Update(ctx, payoutID, func(p *domain.Payout) (err error) {
		from, err = p.Apply(m, now)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if err := s.totals.Count(ctx, p, from); err != nil {
		return nil, nil, err
	}
	w, err := s.changeWallet(ctx, p.WalletID, domain.StatementMove{Kind: domain.KindPayoutReturned, Description: "Payout " + p.ID + " " + p.Status + ": its amount returned",
		Refs: domain.StatementRefs{PayoutID: p.ID, TransactionID: p.TransactionID}}, func(w *domain.Wallet) error {
		return w.SettleMove(m.Move, m.Restore, p.RequestedAmount, now)
	})
	if errors.Is(err, domain.ErrNoWallet) {
		w, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if status := domain.TxStatusAfter(m.Move, m.Restore); status != "" {
		ok, err := s.ledger.SettlePayout(ctx, p.TransactionID, status, now)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			// The ledger and the payout disagree: aborting keeps the move
			// from leaving the wallet and its ledger apart.
			s.env.Logger.ErrorContext(ctx, "payouts: the payout's wallet transaction is missing or already settled; move aborted",
				"payoutId", p.ID, "transactionId", p.TransactionID, "move", string(m.Move), "matched", 0)
			return nil, nil, apperr.New(apperr.Internal, "payout %s: its wallet transaction %s is missing or not open; nothing was changed", p.ID, p.TransactionID)
		}
	}
	eventAdmin, eventName := m.AdminID, m.AdminName
	if m.Move == domain.MoveHandover || m.AdminID == domain.ProcessorActor {
		eventAdmin, eventName = "", "" // no administrator moved it
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicPayouts, m.Move.Event(), p.ID, p.Event(from, eventAdmin, eventName)); err != nil {
		return nil, nil, err
	}
	return p, w, nil
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
	ps, err := s.payouts.Open(ctx, a.StoreID, limit)
	if err != nil {
		return nil, err
	}
	wallets, err := s.walletsOf(ctx, ps)
	if err != nil {
		return nil, err
	}
	out := make([]PayoutItem, len(ps))
	items := make([]*PayoutItem, len(ps))
	for i := range ps {
		out[i] = payoutItem(&ps[i], wallets[ps[i].WalletID])
		items[i] = &out[i]
	}
	if err := s.nameStores(ctx, items, true); err != nil {
		return nil, err
	}
	return out, nil
}

// walletsOf reads the wallets of payouts in one find, by id.
func (s *svc) walletsOf(ctx context.Context, ps []domain.Payout) (map[string]*domain.Wallet, error) {
	idSet := map[string]bool{}
	var list []string
	for _, p := range ps {
		if !idSet[p.WalletID] {
			idSet[p.WalletID] = true
			list = append(list, p.WalletID)
		}
	}
	return s.wallets.GetMany(ctx, list)
}

type getPayoutArgs struct {
	PayoutID string `json:"payoutId" op:"required,id=payouts"`
}

func (s *svc) getPayout(ctx context.Context, a *getPayoutArgs) (*Payout, error) {
	p, err := s.payouts.Get(ctx, a.PayoutID)
	if p == nil || err != nil {
		return nil, err
	}
	w, err := s.wallets.Get(ctx, p.WalletID)
	if err != nil {
		return nil, err
	}
	d := payoutDetail(p, w, true)
	if err := s.nameStores(ctx, []*PayoutItem{&d.PayoutItem}, true); err != nil {
		return nil, err
	}
	return &d, nil
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
// running totals (storage.Totals), or, with a dateRange, from one indexed find of
// the payouts requested within it (inclusive).
func (s *svc) getPayoutStatistics(ctx context.Context, a *statisticsArgs) (*domain.Statistics, error) {
	now := s.now()
	if a.DateRange == nil {
		sm, err := s.totals.Summary(ctx, now)
		if err != nil {
			return nil, err
		}
		st := sm.Statistics()
		return &st, nil
	}
	r := a.DateRange
	if r.EndDate < r.StartDate {
		return nil, apperr.Invalid("dateRange.endDate", "must not be before startDate")
	}
	ps, err := s.payouts.RequestedIn(ctx, r.StartDate, r.EndDate)
	if err != nil {
		return nil, err
	}
	in := make([]domain.StatPayout, len(ps))
	for i, p := range ps {
		in[i] = domain.StatPayout{StoreID: p.StoreID, StoreName: p.StoreName, Status: p.Status, Amount: p.RequestedAmount, RequestDate: p.RequestDate}
		if p.CompletedDate != nil {
			in[i].CompletedDate = *p.CompletedDate
		}
	}
	st := domain.ComputeStatistics(in, now)
	return &st, nil
}
