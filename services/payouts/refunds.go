package payouts

// What a refund does to the store's wallet (docs/adr/0147). An order.refunded
// event says which refund of which order the processor confirmed; what it
// carries besides is never trusted: the customers service confirms that the
// refund is among the order's refunds, succeeded, of that amount
// (getOrderFacts, asked in prepare outside the transaction), and the
// order's figures come from it. The refund's store share (the D1 split of
// domain.Split) then leaves the wallet: from the order's earning while it is
// still held (pending), the rest from available, which may go negative (a
// debt); before the order was credited it lowers the credit instead. Each
// refund is applied once (domain.OrderMoney records it; the transactions'
// source keys are unique), in any order.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Why a refund or dispute event moved nothing (the unconfirmed metric's
// reason).
const (
	reasonRefundUnconfirmed  = "refund_unconfirmed"  // the order has no succeeded refund of that id and amount
	reasonDisputeUnconfirmed = "dispute_unconfirmed" // the payments service has no such dispute in that status
	reasonNotAED             = "not_aed"             // a dispute in another currency than the order's payment, or an order paid in another currency without its amount paid
)

// orderMoneyOf is the order's money state: as recorded, else new from the
// order's terms (an order credited before this record existed is marked
// credited with its earning).
func (s *svc) orderMoneyOf(ctx context.Context, orderID string, t domain.Terms) (*domain.OrderMoney, error) {
	om, err := s.orders.Get(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if om != nil {
		om.Adopt(t) // an order paid in another currency, credited before its currency was recorded
		return om, nil
	}
	om = domain.NewOrderMoney(orderID, t)
	e, err := s.ledger.BySource(ctx, domain.EarningKey(orderID))
	if err != nil {
		return nil, err
	}
	if e != nil {
		om.MarkCredited(e.ID)
	}
	return om, nil
}

// termsOf are an order's terms as the customers service has them.
func termsOf(f *customers.OrderFacts) domain.Terms {
	return domain.Terms{StoreID: f.StoreID, Total: f.Total, PlatformCommission: f.PlatformCommission, StoreEarnings: f.StoreEarnings,
		Currency: f.Currency, AmountPaid: f.AmountPaid}
}

// onRefunded applies a refund the customers service confirms (see the top
// of this file). A refund of an order paid in another currency is in that
// currency: it is reversed in AED in proportion to what was paid
// (domain.AEDCum, docs/adr/0153). It runs in the consumer's transaction.
func (s *svc) onRefunded(ctx context.Context, env events.Envelope, d customers.OrderRefunded) error {
	skip := func(reason string, args ...any) error {
		s.countUnconfirmed(ctx, reason)
		s.env.Logger.WarnContext(ctx, "payouts: a refund event the customers service does not confirm: nothing moved",
			append([]any{"eventId", env.ID, "orderId", d.OrderID, "refundId", d.RefundID, "reason", reason, "eventAmountFils", int64(d.Amount)}, args...)...)
		return nil
	}
	if !ids.Valid("orders", d.OrderID) || d.RefundID == "" {
		return skip(reasonUnknownOrder)
	}
	f, err := s.factsOf(ctx, d.OrderID)
	if err != nil {
		return err
	}
	if f == nil {
		return skip(reasonUnknownOrder)
	}
	var fact *customers.RefundFact
	for i := range f.Refunds {
		if f.Refunds[i].RefundID == d.RefundID {
			fact = &f.Refunds[i]
		}
	}
	switch {
	case fact == nil || fact.Status != customers.RefundStatusSucceeded || fact.Amount != d.Amount || fact.Amount <= 0:
		return skip(reasonRefundUnconfirmed)
	case termsOf(f).OtherCurrency() && f.AmountPaid <= 0:
		return skip(reasonNotAED, "currency", f.Currency)
	case !ids.Valid("stores", f.StoreID):
		return fmt.Errorf("%s %s: the customers service's order %s has store %q", env.Type, env.ID, d.OrderID, f.StoreID)
	}
	return retryConflict(s.reverseRefund(ctx, f, d.RefundID, fact.Amount))
}

// retryConflict makes a compare-and-set missed in the consumer's
// transaction a retry (events.Retry: the event is handled again, never
// dead-lettered for it).
func retryConflict(err error) error {
	if errors.Is(err, store.ErrConflict) || store.IsDuplicate(err) {
		return events.Retry(err)
	}
	return err
}

// reverseRefund applies the confirmed refund refundID of amount to the order
// f: the D1 split, then the store's share out of the wallet (takeFromOrder)
// unless the order is not credited yet. It runs in a transaction.
func (s *svc) reverseRefund(ctx context.Context, f *customers.OrderFacts, refundID string, amount money.Fils) error {
	now := s.nowMs()
	om, err := s.orderMoneyOf(ctx, f.OrderID, termsOf(f))
	if err != nil {
		return err
	}
	r, err := om.ApplyRefund(refundID, amount, now)
	if errors.Is(err, domain.ErrApplied) {
		return nil // a redelivery
	}
	if err != nil {
		return err
	}
	if !r.BeforeCredit && r.Store > 0 {
		if err := s.openWallet(ctx, domain.StoreInfo{ID: om.StoreID, Name: f.StoreName, OwnerUserID: f.StoreOwnerUserID}); err != nil {
			return err
		}
		takeID := "refund:" + refundID
		held, err := s.takeFromOrder(ctx, om, r.Store, takeID, now)
		if err != nil {
			return err
		}
		meta := map[string]string{"orderId": om.ID, "refundId": refundID, "takeId": takeID, "refundAmount": domain.AEDText(amount),
			"commissionReversed": domain.AEDText(r.Commission)}
		if r.Excess > 0 {
			meta["beyondOrderTotal"] = domain.AEDText(r.Excess)
		}
		desc := fmt.Sprintf("Refund %s of order %s (%s AED; commission reversed %s AED)", refundID, om.ID, domain.AEDText(amount), domain.AEDText(r.Commission))
		if om.OtherCurrency() {
			paid := fmt.Sprintf("%g %s", money.Major(int64(amount), om.Currency), strings.ToUpper(om.Currency))
			meta["refundAmount"], meta["refundCurrency"], meta["refundAmountAED"] = fmt.Sprint(money.Major(int64(amount), om.Currency)), om.Currency, domain.AEDText(r.AED)
			desc = fmt.Sprintf("Refund %s of order %s (%s paid in %s: %s AED; commission reversed %s AED)", refundID, om.ID, paid,
				strings.ToUpper(om.Currency), domain.AEDText(r.AED), domain.AEDText(r.Commission))
		}
		if _, _, err := s.moveWallet(ctx, walletMove{
			storeID: om.StoreID, kind: domain.KindRefund, event: contract.EventWalletRefundReversed, description: desc,
			refs: domain.StatementRefs{OrderID: om.ID, RefundID: refundID},
			txs:  []moveTx{{domain.TxRefundHeld, held, takeID + ":held"}, {domain.TxRefund, r.Store - held, takeID + ":available"}},
			meta: meta, now: now,
			ev: contract.WalletMoveEvent{Kind: contract.MoveRefund, OrderID: om.ID, RefundID: refundID, Amount: r.Store,
				FromPending: held, FromAvailable: r.Store - held, Commission: r.Commission},
		}); err != nil {
			return err
		}
	}
	return s.orders.Save(ctx, om)
}

// takeFromOrder takes up to amount from the order's earning while it is
// still held (a conditional update of the earning recording the take as
// takeID, as adjustments take: storage.Ledger.Take), and returns how much
// it took; the rest is the caller's to take from available.
func (s *svc) takeFromOrder(ctx context.Context, om *domain.OrderMoney, amount money.Fils, takeID string, now int64) (money.Fils, error) {
	if om.EarningID == "" {
		return 0, nil
	}
	e, err := s.ledger.Get(ctx, om.EarningID)
	if err != nil || e == nil || e.Status != domain.TxPending || e.HeldRemaining <= 0 {
		return 0, err
	}
	take := min(amount, e.HeldRemaining)
	if err := s.ledger.Take(ctx, domain.Take{EarningID: e.ID, Held: e.HeldRemaining, Amount: take}, takeID, now); err != nil {
		return 0, err
	}
	return take, nil
}

// moveTx is one transaction of a wallet move: its type, amount (none
// recorded for 0) and source key.
type moveTx struct {
	typ       string
	amount    money.Fils
	sourceKey string
}

// walletMove is a change of a store's wallet by a refund or a dispute.
type walletMove struct {
	storeID, kind, event, description string
	refs                              domain.StatementRefs
	txs                               []moveTx
	meta                              map[string]string
	now                               int64
	ev                                contract.WalletMoveEvent
}

// moveWallet makes m: its transactions (each with its signed change), the
// wallet's change by their sum (domain.Wallet.Reverse: available may go
// negative, pending and disputed never), its statement entry (changeWallet)
// and its event, in the caller's transaction. Nothing is written when the
// transactions sum to no change.
func (s *svc) moveWallet(ctx context.Context, m walletMove) (*domain.Wallet, []string, error) {
	var d domain.Balances
	var txs []*domain.Transaction
	for _, t := range m.txs {
		if t.amount <= 0 {
			continue
		}
		meta := map[string]string{}
		for k, v := range m.meta {
			meta[k] = v
		}
		tx := domain.NewMoveTx(ids.New("walletTransactions"), t.typ, m.storeID, t.amount, t.sourceKey, m.description, meta, m.now)
		d = d.Plus(*tx.Delta)
		txs = append(txs, tx)
	}
	if len(txs) == 0 {
		return nil, nil, nil
	}
	walletID := domain.WalletIDOf(m.storeID)
	refs := m.refs
	refs.TransactionID = txs[0].ID
	w, err := s.changeWallet(ctx, walletID, domain.StatementMove{Kind: m.kind, Description: m.description, Refs: refs},
		func(w *domain.Wallet) error { return w.Reverse(d, m.now) })
	if errors.Is(err, domain.ErrNoWallet) {
		return nil, nil, fmt.Errorf("payouts: wallet %s vanished while moving %s", walletID, m.kind)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, tx := range txs {
		if err := s.ledger.Insert(ctx, tx); err != nil {
			return nil, nil, err
		}
		m.ev.TransactionIDs = append(m.ev.TransactionIDs, tx.ID)
	}
	if m.event == "" {
		return w, m.ev.TransactionIDs, nil
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, m.event, walletID, w.MoveEvent(m.ev)); err != nil {
		return nil, nil, err
	}
	return w, m.ev.TransactionIDs, nil
}
