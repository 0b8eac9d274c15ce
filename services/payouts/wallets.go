package payouts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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

// storeInfo is what the service knows of a store when it opens its wallet;
// empty fields are left as they are. Version is the catalog's version of the
// store when the info comes from its store.created or store.updated event,
// and 0 when it comes from elsewhere (an order's copy, a cached read), which
// may be older than what the wallet holds.
type storeInfo struct {
	ID, Name, OwnerUserID, OwnerName, OwnerPhone string
	Version                                      int64
}

// openWallet opens the store's wallet with zero balances unless it is open,
// and records what info tells of the store. Opening is idempotent (the id is
// the store's, and a unique index holds one wallet per store), so the
// store.created event, its redeliveries and an earning that arrives first
// all end with one wallet. The store's name and owner follow the catalog:
// info with a version is what the catalog answered when a store event
// arrived (confirm.go), read after the event was committed, and replaces the
// wallet's copy whenever its version differs from the one the wallet holds
// (storeVersion): not only when newer, so a copy pinned by a forged event
// of an earlier version of this service (a version the catalog never had)
// is put right by the store's next event; a redelivered store.created finds
// the catalog's current store and undoes nothing. Info without a version
// only fills in a wallet it opens.
func (s *svc) openWallet(ctx context.Context, info storeInfo) error {
	id := WalletIDOf(info.ID)
	if id == "" {
		return fmt.Errorf("payouts: %q is not a store id", info.ID)
	}
	now := s.nowMs()
	onInsert := bson.M{
		"storeId": info.ID, "availableBalance": money.Fils(0), "pendingBalance": money.Fils(0), "totalEarnings": money.Fils(0),
		"totalPayouts": money.Fils(0), "lastPayoutDate": nil, "totalOrders": int64(0), "creationTime": now, "updatedAt": now,
	}
	set := bson.M{}
	for k, v := range map[string]string{"storeName": info.Name, "ownerUserId": info.OwnerUserID, "ownerName": info.OwnerName, "ownerPhone": info.OwnerPhone} {
		if v != "" {
			set[k] = v
		}
	}
	if info.Version == 0 {
		for k, v := range set {
			onInsert[k] = v
		}
	}
	wallets := s.env.DB.Collection(walletsColl)
	if _, err := wallets.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$setOnInsert": onInsert}, options.Update().SetUpsert(true)); err != nil {
		return err
	}
	if info.Version == 0 {
		return nil
	}
	set["storeVersion"] = info.Version
	_, err := wallets.UpdateOne(ctx, bson.M{"_id": id, "$or": bson.A{
		bson.M{"storeVersion": bson.M{"$ne": info.Version}}, bson.M{"storeVersion": bson.M{"$exists": false}},
	}}, bson.M{"$set": set})
	return err
}

// wallet is the store's wallet, nil when it is not open.
func (s *svc) wallet(ctx context.Context, storeID string) (*walletDoc, error) {
	return s.walletByID(ctx, WalletIDOf(storeID))
}

func (s *svc) walletByID(ctx context.Context, id string) (*walletDoc, error) {
	var w walletDoc
	err := s.env.DB.Collection(walletsColl).FindOne(ctx, bson.M{"_id": id}).Decode(&w)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// change applies d to a wallet's balances with inc's other counters and set's
// fields, in one conditional update: a balance that d lowers must hold enough
// (the filter), so no interleaving of writers can overdraw it, on the
// embedded engine and on MongoDB alike (two transactions that write one
// wallet conflict: the second to commit runs again and sees the first). It
// returns the wallet after the change, or nil when the wallet is not open or
// a balance is short.
func (s *svc) change(ctx context.Context, walletID string, d Balances, inc, set bson.M) (*walletDoc, error) {
	filter := bson.M{"_id": walletID}
	if d.Available < 0 {
		filter["availableBalance"] = bson.M{"$gte": -d.Available}
	}
	if d.Pending < 0 {
		filter["pendingBalance"] = bson.M{"$gte": -d.Pending}
	}
	incs := bson.M{}
	if d.Available != 0 {
		incs["availableBalance"] = d.Available
	}
	if d.Pending != 0 {
		incs["pendingBalance"] = d.Pending
	}
	for k, v := range inc {
		incs[k] = v
	}
	sets := bson.M{"updatedAt": s.nowMs()}
	for k, v := range set {
		sets[k] = v
	}
	update := bson.M{"$set": sets}
	if len(incs) > 0 {
		update["$inc"] = incs
	}
	var w walletDoc
	err := s.env.DB.Collection(walletsColl).FindOneAndUpdate(ctx, filter, update,
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&w)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// shortOf explains why change refused d: the wallet, as read in the same
// transaction, lacks the balance d lowers.
func (s *svc) shortOf(ctx context.Context, walletID string, d Balances) error {
	w, err := s.walletByID(ctx, walletID)
	if err != nil {
		return err
	}
	var have Balances
	if w != nil {
		have = w.balances()
	}
	switch {
	case d.Available < 0 && have.Available < -d.Available:
		return apperr.New(apperr.FailedPrecondition, "insufficient available balance: %.2f AED available, %.2f AED needed", have.Available.AED(), (-d.Available).AED()).
			WithDetails(map[string]any{"reason": "insufficient_balance", "balance": "available"})
	case d.Pending < 0 && have.Pending < -d.Pending:
		return apperr.New(apperr.FailedPrecondition, "insufficient pending balance: %.2f AED pending, %.2f AED needed", have.Pending.AED(), (-d.Pending).AED()).
			WithDetails(map[string]any{"reason": "insufficient_balance", "balance": "pending"})
	case w == nil:
		return apperr.New(apperr.NotFound, "wallet %s does not exist", walletID)
	}
	return errors.New("payouts: wallet change refused for no reason found") // not reached: the filter holds only these
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
		return &WalletView{ID: WalletIDOf(st.ID), StoreID: st.ID}, nil
	}
	v := w.view()
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
	r, err := page.Find(ctx, s.env.DB.Collection(txColl), bson.M{"storeId": st.ID}, page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts,
		func(t *txDoc) (any, string) { return t.CreatedAt, t.ID })
	if err != nil {
		return page.Result[TransactionView]{}, err
	}
	admin := ops.Caller(ctx).IsAdmin()
	return page.Map(r, func(t *txDoc) TransactionView { return t.view(admin) }), nil
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
	txType, delta, err := Adjustment(a.AdjustmentType, a.Amount)
	if err != nil {
		return nil, apperr.Invalid("adjustmentType", "%v", err)
	}
	walletID := WalletIDOf(a.StoreID)
	if a.WalletID != walletID {
		other, err := s.walletByID(ctx, a.WalletID)
		if err != nil {
			return nil, err
		}
		owner := ""
		if other != nil {
			owner = other.StoreID
		} else if st, err := s.storeOf(ctx, storeIDOf(a.WalletID)); err != nil {
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
	var open *storeInfo
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
		open = &storeInfo{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID}
	}
	var out *WalletView
	err = s.tx(ctx, "the wallet", func(ctx context.Context) error {
		if open != nil {
			if err := s.openWallet(ctx, *open); err != nil {
				return err
			}
		}
		now := s.nowMs()
		adj := adjustmentDoc{ID: ids.New("walletAdjustments"), WalletID: walletID, StoreID: a.StoreID, AdjustmentType: a.AdjustmentType,
			Amount: a.Amount, Reason: a.Reason, AdminNotes: a.AdminNotes, AdminUserID: a.AdminUserID, CreatedAt: now}
		adj.SourceKey = "adjustment:" + adj.ID
		nw, err := s.change(ctx, walletID, delta, nil, nil)
		if err != nil {
			return err
		}
		if nw == nil {
			return s.shortOf(ctx, walletID, delta)
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
			meta := map[string]string{"adjustmentType": a.AdjustmentType, "adjustmentId": adj.ID, "adminUserId": a.AdminUserID}
			if a.AdminNotes != nil {
				meta["adminNotes"] = *a.AdminNotes
			}
			if adj.FromHeld > 0 {
				meta["fromHeldEarnings"] = aedText(adj.FromHeld)
			}
			t := txDoc{ID: ids.New("walletTransactions"), WalletID: walletID, StoreID: a.StoreID, Type: txType, Amount: a.Amount,
				Status: TxCompleted, Description: a.Reason, Metadata: meta, SourceKey: adj.SourceKey, CreatedAt: now, UpdatedAt: now}
			if _, err := s.env.DB.Collection(txColl).InsertOne(ctx, t); err != nil {
				return err
			}
			adj.TransactionID = t.ID
		}
		if txType == "" {
			// A move records no wallet transaction: its journal entry is its
			// ledger entry (and says who moved what, and why).
			if _, err := s.env.DB.Collection(adjustmentsColl).InsertOne(ctx, adj); err != nil {
				return err
			}
		}
		if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletAdjusted, walletID, contract.WalletEvent{
			WalletID: walletID, StoreID: a.StoreID, StoreName: nw.StoreName, StoreOwnerUserID: nw.OwnerUserID, TransactionID: adj.TransactionID,
			Type: txType, AdjustmentType: a.AdjustmentType, Amount: a.Amount, Available: nw.AvailableBalance, Pending: nw.PendingBalance,
			Reason: a.Reason, AdminUserID: a.AdminUserID,
		}); err != nil {
			return err
		}
		v := nw.view()
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
// checks what the sums cannot show (checkLedger): each payout has exactly one
// payout transaction, of its amount and in the status its own implies; each
// earning's amount is what is held of it, what adjustments took from it and
// what its release moved; the pending balance covers what is held; no balance
// is negative. Last, outside the snapshot's transaction, it asks the customers
// service about every earning's order (unconfirmedEarnings): an earning of an
// order that is unknown, not delivered, of another store or of other earnings
// is listed and makes the wallet inconsistent (an earning credited from a
// forged event has its own ledger entry, which the sums cannot tell).
func (s *svc) reconcileWallet(ctx context.Context, a *reconcileArgs) (*Reconciliation, error) {
	walletID := WalletIDOf(a.StoreID)
	out := &Reconciliation{WalletID: walletID, StoreID: a.StoreID}
	var ledger []txDoc
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		w, err := s.walletByID(ctx, walletID)
		if err != nil {
			return err
		}
		if w == nil {
			w = &walletDoc{}
		}
		out.Wallet = LedgerFigures{AvailableBalance: w.AvailableBalance.AED(), PendingBalance: w.PendingBalance.AED(),
			TotalEarnings: w.TotalEarnings.AED(), TotalPayouts: w.TotalPayouts.AED(), TotalOrders: w.TotalOrders}

		cur, err := s.env.DB.Collection(txColl).Find(ctx, bson.M{"walletId": walletID},
			options.Find().SetProjection(bson.M{"type": 1, "status": 1, "amount": 1, "metadata": 1, "heldRemaining": 1, "heldTaken": 1}))
		if err != nil {
			return err
		}
		var txs []txDoc
		if err := cur.All(ctx, &txs); err != nil {
			return err
		}
		ledger = txs
		cur, err = s.env.DB.Collection(adjustmentsColl).Find(ctx, bson.M{"walletId": walletID, "adjustmentType": contract.AdjustMovePendingToAvailable})
		if err != nil {
			return err
		}
		var movesDone []adjustmentDoc
		if err := cur.All(ctx, &movesDone); err != nil {
			return err
		}
		cur, err = s.env.DB.Collection(payoutsColl).Find(ctx, bson.M{"storeId": a.StoreID},
			options.Find().SetProjection(bson.M{"requestedAmount": 1, "status": 1, "balanceRestored": 1, "transactionId": 1}))
		if err != nil {
			return err
		}
		var ps []payoutDoc
		if err := cur.All(ctx, &ps); err != nil {
			return err
		}

		entries := make([]Entry, len(txs))
		var earnings money.Fils
		var orders int64
		for i, t := range txs {
			entries[i] = Entry{Type: t.Type, Status: t.Status, Amount: t.Amount}
			if t.Type == TxEarning {
				earnings += t.Amount
				orders++
			}
		}
		amounts := make([]money.Fils, len(movesDone))
		for i, m := range movesDone {
			amounts[i] = m.Amount
		}
		var payouts money.Fils
		for _, p := range ps {
			if p.Status == StatusCompleted {
				payouts += p.RequestedAmount
			}
		}
		b := Recompute(entries, amounts)
		out.Ledger = LedgerFigures{AvailableBalance: b.Available.AED(), PendingBalance: b.Pending.AED(), TotalEarnings: earnings.AED(),
			TotalPayouts: payouts.AED(), TotalOrders: orders}
		out.Transactions = len(txs)
		var bad []string
		if b != w.balances() {
			bad = append(bad, fmt.Sprintf("balances: stored %.2f available, %.2f pending; the ledger makes %.2f, %.2f",
				w.AvailableBalance.AED(), w.PendingBalance.AED(), b.Available.AED(), b.Pending.AED()))
		}
		if earnings != w.TotalEarnings || orders != w.TotalOrders {
			bad = append(bad, fmt.Sprintf("earnings: stored %.2f over %d orders; the ledger makes %.2f over %d",
				w.TotalEarnings.AED(), w.TotalOrders, earnings.AED(), orders))
		}
		if payouts != w.TotalPayouts {
			bad = append(bad, fmt.Sprintf("totalPayouts: stored %.2f; the completed payouts make %.2f", w.TotalPayouts.AED(), payouts.AED()))
		}
		bad = append(bad, checkLedger(w.balances(), b, txs, movesDone, ps)...)
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

// payoutTxStatuses are the statuses a payout's transaction may have with the
// payout in status (balanceRestored for a failed one): cancelled with a
// rejection, failed with a failure that restored the balance, pending while
// requested, completed once approved (and after a failure that kept the money
// out, which can only follow an approval).
func payoutTxStatuses(status string, restored bool) []string {
	switch status {
	case StatusRequested:
		return []string{TxPending}
	case StatusCancelled:
		return []string{TxCancelled}
	case StatusFailed:
		if restored {
			return []string{TxFailed}
		}
		return []string{TxPending, TxCompleted}
	}
	return []string{TxCompleted}
}

// checkLedger finds what the sums cannot: see reconcileWallet. stored and
// ledger are the balances as stored and as recomputed.
func checkLedger(stored, ledger Balances, txs []txDoc, moves []adjustmentDoc, ps []payoutDoc) []string {
	var bad []string
	if !stored.Valid() {
		bad = append(bad, fmt.Sprintf("a stored balance is negative: %.2f available, %.2f pending", stored.Available.AED(), stored.Pending.AED()))
	}
	if !ledger.Valid() {
		bad = append(bad, fmt.Sprintf("the ledger makes a balance negative: %.2f available, %.2f pending", ledger.Available.AED(), ledger.Pending.AED()))
	}
	// Payouts and their transactions.
	byPayout := map[string][]txDoc{}
	for _, t := range txs {
		if t.Type == TxPayout {
			byPayout[t.Metadata["payoutId"]] = append(byPayout[t.Metadata["payoutId"]], t)
		}
	}
	for _, p := range ps {
		ts := byPayout[p.ID]
		delete(byPayout, p.ID)
		if len(ts) != 1 {
			bad = append(bad, fmt.Sprintf("payout %s has %d payout transactions (needs exactly one)", p.ID, len(ts)))
			continue
		}
		t := ts[0]
		if t.ID != p.TransactionID {
			bad = append(bad, fmt.Sprintf("payout %s names transaction %s, its transaction is %s", p.ID, p.TransactionID, t.ID))
		}
		if t.Amount != p.RequestedAmount {
			bad = append(bad, fmt.Sprintf("payout %s requested %.2f, its transaction %s is of %.2f", p.ID, p.RequestedAmount.AED(), t.ID, t.Amount.AED()))
		}
		if want := payoutTxStatuses(p.Status, p.BalanceRestored); !slices.Contains(want, t.Status) {
			bad = append(bad, fmt.Sprintf("payout %s is %s (balance restored: %t), its transaction %s is %s (needs %s)",
				p.ID, p.Status, p.BalanceRestored, t.ID, t.Status, strings.Join(want, " or ")))
		}
	}
	for id, ts := range byPayout {
		for _, t := range ts {
			bad = append(bad, fmt.Sprintf("payout transaction %s names payout %q, which this store does not have", t.ID, id))
		}
	}
	// Earnings: amount = held + taken + released.
	released := map[string]money.Fils{}
	adjusted := map[string]money.Fils{} // what each pending-lowering adjustment may take
	for _, t := range txs {
		switch t.Type {
		case TxRelease:
			released[t.Metadata["earningId"]] += t.Amount
		case TxPendingDebit:
			adjusted[t.Metadata["adjustmentId"]] += t.Amount
		}
	}
	for _, m := range moves {
		adjusted[m.ID] += m.Amount
	}
	var held money.Fils
	taken := map[string]money.Fils{}
	for _, e := range txs {
		if e.Type != TxEarning {
			continue
		}
		var took money.Fils
		for _, h := range e.HeldTaken {
			took += h.Amount
			taken[h.AdjustmentID] += h.Amount
		}
		rel := released[e.ID]
		delete(released, e.ID)
		switch {
		case e.HeldRemaining < 0 || e.HeldRemaining > e.Amount:
			bad = append(bad, fmt.Sprintf("earning %s holds %.2f of its %.2f", e.ID, e.HeldRemaining.AED(), e.Amount.AED()))
		case e.HeldRemaining+took+rel != e.Amount:
			bad = append(bad, fmt.Sprintf("earning %s of %.2f: %.2f held, %.2f taken by adjustments, %.2f released do not add up",
				e.ID, e.Amount.AED(), e.HeldRemaining.AED(), took.AED(), rel.AED()))
		}
		switch e.Status {
		case TxPending:
			held += e.HeldRemaining
			if rel != 0 {
				bad = append(bad, fmt.Sprintf("earning %s is still held but was released", e.ID))
			}
		case TxCompleted:
			if e.HeldRemaining != 0 {
				bad = append(bad, fmt.Sprintf("earning %s was released but still holds %.2f", e.ID, e.HeldRemaining.AED()))
			}
		}
	}
	for id, amount := range released {
		bad = append(bad, fmt.Sprintf("a release of %.2f names earning %q, which this wallet does not have", amount.AED(), id))
	}
	if held > stored.Pending {
		bad = append(bad, fmt.Sprintf("the held earnings hold %.2f, more than the pending balance %.2f", held.AED(), stored.Pending.AED()))
	}
	for id, amount := range taken {
		if amount > adjusted[id] {
			bad = append(bad, fmt.Sprintf("adjustment %s took %.2f from held earnings, more than its %.2f", id, amount.AED(), adjusted[id].AED()))
		}
	}
	slices.Sort(bad)
	return bad
}
