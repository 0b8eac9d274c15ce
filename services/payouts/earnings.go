package payouts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
)

// consume follows the catalog (wallets open from store.created, and keep the
// store's name and owner from store.updated) and the orders (earnings from
// deliveries) until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: []string{catalog.Topic, customers.TopicOrders, payments.Topic},
		DB: s.env.DB, Handler: s.onEvent, Handles: consumed, Prepare: s.prepare, Publisher: s.env.Publisher, Logger: s.env.Logger, Status: s.status,
		AfterCommit: s.env.Relay.Kick,
	})
}

// consumed are the events the consumer follows, in the versions onEvent
// reads.
var consumed = events.Versions{catalog.EventStoreCreated: {1}, catalog.EventStoreUpdated: {1}, customers.EventOrderStatusChanged: {1},
	payments.EventTransferPaid: {1}, payments.EventTransferFailed: {1},
	customers.EventOrderRefunded: {1}, payments.EventDisputeOpened: {1}, payments.EventDisputeClosed: {1}}

// onEvent is the consumer's handler: ctx is its transaction, which also
// records the event id as processed. Other event types are not ours.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	switch env.Type {
	case catalog.EventStoreCreated, catalog.EventStoreUpdated:
		var d catalog.StoreEvent
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		if !ids.Valid("stores", d.StoreID) {
			return fmt.Errorf("%s %s: data.storeId %q is not a store id", env.Type, env.ID, d.StoreID)
		}
		s.catalog.Forget(d.StoreID) // what this service shows of the store follows the catalog
		// Only which store may have changed is taken from the event: the
		// catalog says what it is now (confirm.go).
		return s.onStoreEvent(ctx, env, d)
	case customers.EventOrderStatusChanged:
		var d customers.OrderEvent
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		if d.To != customers.StatusDelivered {
			return nil
		}
		// Only which order was delivered is taken from the event: the
		// customers service confirms the rest (confirm.go).
		return s.onDelivered(ctx, env, d)
	case payments.EventTransferPaid, payments.EventTransferFailed:
		var d payments.Transfer
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		// Only which payout's transfer settled is taken from the event:
		// the payments service confirms how (transfers.go).
		return s.onTransferSettled(ctx, env, d.PayoutID)
	case customers.EventOrderRefunded:
		var d customers.OrderRefunded
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		return s.onRefunded(ctx, env, d)
	case payments.EventDisputeOpened, payments.EventDisputeClosed:
		var d payments.Dispute
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		return s.onDispute(ctx, env, d)
	}
	return nil
}

// holdDays is the pendingBalanceHoldDays in force. An earning must never be
// refused (or dead-lettered) because the configuration cannot be read: it
// then uses the settings last read, else the platform's defaults.
func (s *svc) holdDays(ctx context.Context) int {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	w, err := s.settings(ctx)
	if err == nil {
		s.lastSettings.Store(w)
		return w.HoldDays
	}
	if last := s.lastSettings.Load(); last != nil {
		s.env.Logger.WarnContext(ctx, "payouts: wallet settings unavailable, holding earnings with the last ones read", "err", err, "holdDays", last.HoldDays)
		return last.HoldDays
	}
	s.env.Logger.WarnContext(ctx, "payouts: wallet settings unavailable, holding earnings with the platform defaults", "err", err, "holdDays", domain.DefaultWalletSettings.HoldDays)
	return domain.DefaultWalletSettings.HoldDays
}

// creditEarnings credits the store's wallet with a delivered order's earnings
// (the order total less the commission frozen on it), as the customers
// service confirmed them (onDelivered), into the pending
// balance, held until pendingBalanceHoldDays from now. It must run in a
// transaction. An order already credited is left alone: the unique source key
// makes a redelivered event (even one whose dedupe record is gone) credit
// once.
func (s *svc) creditEarnings(ctx context.Context, o customers.OrderEvent) error {
	if done, err := s.ledger.HasSource(ctx, domain.EarningKey(o.OrderID)); done || err != nil {
		return err
	}
	hold := s.holdDays(ctx)
	if err := s.openWallet(ctx, domain.StoreInfo{ID: o.StoreID, Name: o.StoreName, OwnerUserID: o.StoreOwnerUserID}); err != nil {
		return err
	}
	now := s.now()
	walletID := domain.WalletIDOf(o.StoreID)
	// What was refunded (or lost in disputes) before the delivery lowers the
	// credit (docs/adr/0147).
	om, err := s.orderMoneyOf(ctx, o.OrderID, domain.Terms{StoreID: o.StoreID, Total: o.Total, PlatformCommission: o.PlatformCommission, StoreEarnings: o.StoreEarnings,
		Currency: o.Currency, AmountPaid: o.AmountPaid})
	if err != nil {
		return err
	}
	credit := om.Credit()
	t := domain.NewEarning(ids.New("walletTransactions"), domain.Earning{OrderID: o.OrderID, StoreID: o.StoreID, Total: o.Total,
		PlatformCommission: o.PlatformCommission, StoreEarns: credit}, hold, now)
	if om.StoreBeforeCredit > 0 {
		t.ReversedBeforeCredit = o.StoreEarnings - credit
		t.Metadata["storeEarnings"], t.Metadata["reversedBeforeCredit"] = domain.AEDText(o.StoreEarnings), domain.AEDText(t.ReversedBeforeCredit)
	}
	if err := s.ledger.Insert(ctx, t); err != nil {
		return err
	}
	w, err := s.changeWallet(ctx, walletID, domain.StatementMove{Kind: domain.KindEarning, Description: t.Description,
		Refs: domain.StatementRefs{TransactionID: t.ID, OrderID: o.OrderID}}, func(w *domain.Wallet) error { return w.Credit(credit, now.UnixMilli()) })
	if errors.Is(err, domain.ErrNoWallet) {
		return fmt.Errorf("payouts: wallet %s vanished while crediting order %s", walletID, o.OrderID)
	}
	if err != nil {
		return err
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletCredited, walletID, w.Event(contract.WalletEvent{
		TransactionID: t.ID, Type: domain.TxEarning, Amount: t.Amount, OrderID: o.OrderID, ReleaseAt: t.ReleaseAt,
	})); err != nil {
		return err
	}
	om.MarkCredited(t.ID)
	// Disputes opened before the credit hold their share now.
	for _, d := range om.HoldOnCredit(now.UnixMilli()) {
		if err := s.holdDispute(ctx, om, d, now.UnixMilli()); err != nil {
			return err
		}
	}
	if err := s.orders.Save(ctx, om); err != nil {
		return err
	}
	if t.ReleaseAt <= now.UnixMilli() { // no hold: available at once
		_, _, err := s.release(ctx, t.ID, now.UnixMilli())
		return err
	}
	return nil
}

// releaseBatch bounds one read of due earnings.
const releaseBatch = 100

// releaseLoop releases due earnings every interval until ctx ends.
func (s *svc) releaseLoop(ctx context.Context) error {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if n, amount, err := s.releaseDue(ctx); err != nil {
			if ctx.Err() == nil {
				s.env.Logger.ErrorContext(ctx, "payouts: releasing due earnings failed", "err", err)
			}
		} else if n > 0 {
			s.env.Logger.InfoContext(ctx, "payouts: released due earnings", "earnings", n, "amount", amount.AED())
		}
	}
}

// releaseDue releases every earning whose hold is over at the service clock's
// now, each in its own transaction, and tells how many and how much moved.
func (s *svc) releaseDue(ctx context.Context) (int, money.Fils, error) {
	count, total := 0, money.Fils(0)
	now := s.nowMs()
	seen := map[string]bool{}
	for {
		due, err := s.ledger.Due(ctx, now, releaseBatch)
		if err != nil {
			return count, total, err
		}
		fresh := 0
		for _, id := range due {
			if seen[id] {
				continue // released meanwhile by another instance, read before it committed
			}
			seen[id] = true
			fresh++
			var moved money.Fils
			var ok bool
			err := s.tx(ctx, "the earning", func(ctx context.Context) error {
				var err error
				ok, moved, err = s.release(ctx, id, now)
				return err
			})
			if err != nil {
				return count, total, err
			}
			if ok {
				count++
				total += moved
			}
		}
		if len(due) < releaseBatch || fresh == 0 {
			return count, total, nil
		}
		if err := ctx.Err(); err != nil {
			return count, total, err
		}
	}
}

// release moves a due earning from pending to available, once: the earning's
// status goes from pending to completed in a conditional update, and its
// release transaction has a unique source key. It moves what of the earning
// is still held (HeldRemaining: an administrator may have moved or deducted
// part of it, takeHeld), never what other earnings hold; the pending balance
// covers it (it covers every held earning's remainder), and min with the
// pending balance only keeps a broken ledger from going negative. It must run
// in a transaction; ok is false when the earning was not due or already
// released.
func (s *svc) release(ctx context.Context, earningID string, now int64) (ok bool, moved money.Fils, err error) {
	e, err := s.ledger.MarkReleased(ctx, earningID, now) // as it was before: its HeldRemaining is what to move
	if e == nil || err != nil {
		return false, 0, err
	}
	if e.HeldRemaining <= 0 {
		return true, 0, nil // all of it was moved or deducted already: no balance changes, no transaction
	}
	releaseID := ids.New("walletTransactions")
	var debtRepaid money.Fils
	w, err := s.changeWallet(ctx, e.WalletID, domain.StatementMove{Kind: domain.KindRelease, Description: "Earnings of order " + e.Metadata["orderId"] + " released",
		Refs: domain.StatementRefs{TransactionID: releaseID, OrderID: e.Metadata["orderId"]}}, func(w *domain.Wallet) error {
		moved = e.Releasable(w.PendingBalance)
		if moved < e.HeldRemaining {
			s.env.Logger.ErrorContext(ctx, "payouts: the pending balance does not cover a held earning (reconcileWallet shows it)",
				"walletId", e.WalletID, "earningId", e.ID, "held", domain.AEDText(e.HeldRemaining), "pending", domain.AEDText(w.PendingBalance))
		}
		if moved == 0 {
			return nil
		}
		// A release adds to a negative available balance: the debt is repaid
		// first, by construction (docs/adr/0147).
		debt := w.Debt()
		if err := w.Change(domain.Balances{Available: moved, Pending: -moved}, now); err != nil {
			return err
		}
		debtRepaid = debt - w.Debt()
		return nil
	})
	if errors.Is(err, domain.ErrNoWallet) {
		return false, 0, fmt.Errorf("payouts: the wallet %s of earning %s does not exist", e.WalletID, e.ID)
	}
	if err != nil {
		return false, 0, err
	}
	if moved == 0 {
		return true, 0, nil
	}
	if err := s.ledger.Unhold(ctx, e.ID, moved); err != nil {
		return false, 0, err
	}
	r := domain.NewRelease(releaseID, e, moved, now)
	if debtRepaid > 0 {
		r.Metadata["debtRepaid"] = domain.AEDText(debtRepaid)
	}
	if err := s.ledger.Insert(ctx, r); err != nil {
		return false, 0, err
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletReleased, e.WalletID, w.Event(contract.WalletEvent{
		TransactionID: r.ID, Type: domain.TxRelease, Amount: moved, OrderID: r.Metadata["orderId"],
	})); err != nil {
		return false, 0, err
	}
	return true, moved, nil
}

// takeHeld takes amount out of the wallet's held earnings, oldest first
// (domain.TakeHeld), for the adjustment adjID (a deduct_pending or
// move_pending_to_available whose change of the pending balance is in the
// same transaction): each earning's HeldRemaining goes down and the take is
// recorded on it (HeldTaken), so its release later moves only what is left
// of it. It returns how much came from held earnings. It runs in the
// caller's transaction.
func (s *svc) takeHeld(ctx context.Context, walletID, adjID string, amount money.Fils, now int64) (money.Fils, error) {
	held, err := s.ledger.Held(ctx, walletID)
	if err != nil {
		return 0, err
	}
	takes, fromHeld := domain.TakeHeld(held, amount)
	for _, t := range takes {
		if err := s.ledger.Take(ctx, t, adjID, now); err != nil {
			return 0, err
		}
	}
	return fromHeld, nil
}

type releaseArgs struct {
	AdminUserID string `json:"adminUserId" op:"required,nonblank"`
}

// ReleaseResult is releaseDueEarnings' answer.
type ReleaseResult struct {
	Released int     `json:"released"`
	Amount   float64 `json:"amount"`
}

// releaseDueEarnings runs the release loop's work now (operators, and tests
// that move the clock).
func (s *svc) releaseDueEarnings(ctx context.Context, _ *releaseArgs) (*ReleaseResult, error) {
	n, amount, err := s.releaseDue(ctx)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		s.env.Relay.Kick()
	}
	return &ReleaseResult{Released: n, Amount: amount.AED()}, nil
}
