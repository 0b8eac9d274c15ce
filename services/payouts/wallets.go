package payouts

import (
	"context"
	"errors"
	"fmt"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
)

// openWallet opens the store's wallet unless it is open, and records what
// info tells of the store (storage.Wallets.Open). It runs in the caller's
// transaction.
func (s *svc) openWallet(ctx context.Context, info domain.StoreInfo) error {
	return s.wallets.Open(ctx, info, s.nowMs())
}

// wallet is the store's wallet, nil when it is not open.
func (s *svc) wallet(ctx context.Context, storeID string) (*domain.Wallet, error) {
	return s.wallets.Get(ctx, domain.WalletIDOf(storeID))
}

type storeArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
}

// getWallet is the store's wallet. A store whose wallet is not open yet (its
// store.created event still on its way) has the zero wallet, under the id the
// wallet will have: nothing is written by a query.
func (s *svc) getWallet(ctx context.Context, _ *storeArgs) (*WalletView, error) {
	st := ops.StoreOf(ctx)
	w, err := s.wallet(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return &WalletView{ID: domain.WalletIDOf(st.ID), StoreID: st.ID}, nil
	}
	v := walletView(w)
	return &v, nil
}

// storePageArgs are the arguments of a store's paged lists (transactions,
// payouts).
type storePageArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

func (s *svc) listTransactions(ctx context.Context, a *storePageArgs) (page.Result[TransactionView], error) {
	st := ops.StoreOf(ctx)
	r, err := s.ledger.Page(ctx, st.ID, a.PaginationOpts)
	if err != nil {
		return page.Result[TransactionView]{}, err
	}
	admin := ops.Caller(ctx).IsAdmin()
	return page.Map(r, func(t *domain.Transaction) TransactionView { return txView(t, admin) }), nil
}

type adjustArgs struct {
	StoreID        string     `json:"storeId" op:"required,id=stores"`
	WalletID       string     `json:"walletId" op:"required,id=storeWallets"`
	AdjustmentType string     `json:"adjustmentType" op:"required,enum=add_balance|deduct_balance|add_pending|deduct_pending|move_pending_to_available"`
	Amount         money.Fils `json:"amount" op:"required,min=0.01"`
	Reason         string     `json:"reason" op:"required,nonblank,max=500"`
	AdminUserID    string     `json:"adminUserId" op:"required,nonblank"`
	AdminNotes     *string    `json:"adminNotes" op:"max=2000,multiline"`
}

// adjustWalletBalance applies one of the five adjustments of section 4.4 to
// the store's wallet, with its transaction (for a move, which records none, a
// journal entry) and its wallet.adjusted event in one transaction; a
// deduction the balance cannot cover is FAILED_PRECONDITION and writes
// nothing. It returns the wallet after the change.
func (s *svc) adjustWalletBalance(ctx context.Context, a *adjustArgs) (*WalletView, error) {
	txType, delta, err := domain.AdjustmentOf(a.AdjustmentType, a.Amount)
	if err != nil {
		return nil, apperr.Invalid("adjustmentType", "%v", err)
	}
	walletID := domain.WalletIDOf(a.StoreID)
	if a.WalletID != walletID {
		other, err := s.wallets.Get(ctx, a.WalletID)
		if err != nil {
			return nil, err
		}
		owner := ""
		if other != nil {
			owner = other.StoreID
		} else if st, err := s.storeOf(ctx, domain.StoreIDOf(a.WalletID)); err != nil {
			return nil, err
		} else if st != nil {
			owner = st.ID // a store whose wallet is not open yet
		}
		if owner != "" {
			return nil, apperr.Invalid("walletId", "is the wallet of store %s, not of store %s", owner, a.StoreID)
		}
		return nil, apperr.New(apperr.NotFound, "wallet %s does not exist", a.WalletID)
	}
	w, err := s.wallet(ctx, a.StoreID)
	if err != nil {
		return nil, err
	}
	var open *domain.StoreInfo
	if w == nil {
		// The wallet is not open yet (store.created on its way): open it now,
		// if the store exists, as the event will.
		st, err := s.storeOf(ctx, a.StoreID)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
		}
		open = &domain.StoreInfo{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID}
	}
	var out *WalletView
	err = s.tx(ctx, "the wallet", func(ctx context.Context) error {
		if open != nil {
			if err := s.openWallet(ctx, *open); err != nil {
				return err
			}
		}
		now := s.nowMs()
		adj := domain.NewAdjustment(domain.AdjustmentRequest{ID: ids.New("walletAdjustments"), WalletID: walletID, StoreID: a.StoreID,
			Kind: a.AdjustmentType, Amount: a.Amount, Reason: a.Reason, AdminUserID: a.AdminUserID,
			AdminName: ops.ActingName(ctx, a.AdminUserID), AdminNotes: a.AdminNotes}, now)
		txID := ""
		if txType != "" {
			txID = ids.New("walletTransactions")
		}
		nw, err := s.changeWallet(ctx, walletID, domain.StatementMove{Kind: a.AdjustmentType, Description: a.Reason,
			Refs: domain.StatementRefs{AdjustmentID: adj.ID, TransactionID: txID}}, func(w *domain.Wallet) error { return w.Change(delta, now) })
		if errors.Is(err, domain.ErrNoWallet) {
			return domain.NoWallet(walletID, delta)
		}
		if err != nil {
			return err
		}
		if delta.Pending < 0 {
			// deduct_pending and move_pending_to_available take from the held
			// earnings first (oldest first), so a release never moves more of
			// an earning than is left of it.
			if adj.FromHeld, err = s.takeHeld(ctx, walletID, adj.ID, -delta.Pending, now); err != nil {
				return err
			}
		}
		if txType != "" {
			t := adj.Transaction(txID, txType, now)
			if err := s.ledger.Insert(ctx, t); err != nil {
				return err
			}
			adj.TransactionID = t.ID
		} else {
			// A move records no wallet transaction: its journal entry is its
			// ledger entry (and says who moved what, and why).
			if err := s.adjustments.Insert(ctx, adj); err != nil {
				return err
			}
		}
		if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletAdjusted, walletID, adj.AdjustedEvent(nw, txType)); err != nil {
			return err
		}
		v := walletView(nw)
		out = &v
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return out, nil
}

// LedgerFigures are a wallet's figures, as stored or as recomputed.
type LedgerFigures struct {
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalPayouts     float64 `json:"totalPayouts"`
	TotalOrders      int64   `json:"totalOrders"`
}

// Reconciliation is reconcileWallet's answer: the wallet as stored, as its
// ledger says it must be, whether they agree, and every inconsistency found
// (empty when consistent).
type Reconciliation struct {
	WalletID        string        `json:"walletId"`
	StoreID         string        `json:"storeId"`
	Wallet          LedgerFigures `json:"wallet"`
	Ledger          LedgerFigures `json:"ledger"`
	Transactions    int           `json:"transactions"`
	Consistent      bool          `json:"consistent"`
	Inconsistencies []string      `json:"inconsistencies"`
	// UnconfirmedEarnings are the earnings whose order the customers service
	// does not confirm: unknown, not delivered, of another store, or of other
	// earnings (confirm.go). Any of them makes the wallet inconsistent.
	UnconfirmedEarnings []UnconfirmedEarning `json:"unconfirmedEarnings"`
}

type reconcileArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
}

// reconcileWallet recomputes the store's wallet from its ledger, in one
// snapshot: balances from the transactions (Effect) and the journal's moves,
// total earnings and orders from the earnings, total payouts from the
// completed payouts. A wallet that is not open is the zero wallet. It also
// checks what the sums cannot show (domain.Reconcile): each payout has exactly one
// payout transaction, of its amount and in the status its own implies; each
// earning's amount is what is held of it, what adjustments took from it and
// what its release moved; the pending balance covers what is held; no balance
// is negative. Last, outside the snapshot's transaction, it asks the customers
// service about every earning's order (unconfirmedEarnings): an earning of an
// order that is unknown, not delivered, of another store or of other earnings
// is listed and makes the wallet inconsistent (an earning credited from a
// forged event has its own ledger entry, which the sums cannot tell).
func (s *svc) reconcileWallet(ctx context.Context, a *reconcileArgs) (*Reconciliation, error) {
	walletID := domain.WalletIDOf(a.StoreID)
	out := &Reconciliation{WalletID: walletID, StoreID: a.StoreID}
	var ledger []domain.Transaction
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.wallets.Get(ctx, walletID)
		if err != nil {
			return err
		}
		if w == nil {
			w = &domain.Wallet{}
		}
		out.Wallet = LedgerFigures{AvailableBalance: w.AvailableBalance.AED(), PendingBalance: w.PendingBalance.AED(),
			TotalEarnings: w.TotalEarnings.AED(), TotalPayouts: w.TotalPayouts.AED(), TotalOrders: w.TotalOrders}
		txs, err := s.ledger.OfWallet(ctx, walletID)
		if err != nil {
			return err
		}
		ledger = txs
		moves, err := s.adjustments.MovesOf(ctx, walletID, contract.AdjustMovePendingToAvailable)
		if err != nil {
			return err
		}
		ps, err := s.payouts.OfStore(ctx, a.StoreID)
		if err != nil {
			return err
		}
		r, bad := domain.Reconcile(w, txs, moves, ps)
		last, err := s.statement.Last(ctx, walletID)
		if err != nil {
			return err
		}
		bad = append(bad, domain.CheckStatement(w, last)...)
		out.Ledger = LedgerFigures{AvailableBalance: r.Available.AED(), PendingBalance: r.Pending.AED(), TotalEarnings: r.Earnings.AED(),
			TotalPayouts: r.Payouts.AED(), TotalOrders: r.Orders}
		out.Transactions = len(txs)
		out.Inconsistencies = bad
		if out.Inconsistencies == nil {
			out.Inconsistencies = []string{}
		}
		out.Consistent = len(bad) == 0
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.UnconfirmedEarnings, err = s.unconfirmedEarnings(ctx, a.StoreID, ledger); err != nil {
		return nil, err
	}
	for _, u := range out.UnconfirmedEarnings {
		out.Inconsistencies = append(out.Inconsistencies, fmt.Sprintf("earning %s of %.2f: its order %q is not confirmed by the customers service (%s)",
			u.TransactionID, u.Amount, u.OrderID, u.Reason))
	}
	out.Consistent = len(out.Inconsistencies) == 0
	if !out.Consistent {
		s.env.Logger.ErrorContext(ctx, "payouts: wallet inconsistent with its ledger", "walletId", walletID, "inconsistencies", out.Inconsistencies)
	}
	return out, nil
}
