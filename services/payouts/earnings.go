package payouts

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/store"
)

// consume follows the catalog (wallets open from store.created, and keep the
// store's name and owner from store.updated) and the orders (earnings from
// deliveries) until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: []string{catalog.Topic, customers.TopicOrders},
		DB: s.env.DB, Handler: s.onEvent, Handles: consumed, Prepare: s.prepare, Publisher: s.env.Publisher, Logger: s.env.Logger, Status: s.status,
		AfterCommit: s.env.Relay.Kick,
	})
}

// consumed are the events the consumer follows, in the versions onEvent
// reads.
var consumed = events.Versions{catalog.EventStoreCreated: {1}, catalog.EventStoreUpdated: {1}, customers.EventOrderStatusChanged: {1}}

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
	s.env.Logger.WarnContext(ctx, "payouts: wallet settings unavailable, holding earnings with the platform defaults", "err", err, "holdDays", defaultWalletSettings.HoldDays)
	return defaultWalletSettings.HoldDays
}

// earningKey is the source key of an order's earnings: one credit per order.
func earningKey(orderID string) string { return "earning:" + orderID }

// creditEarnings credits the store's wallet with a delivered order's earnings
// (the order total less the commission frozen on it), as the customers
// service confirmed them (onDelivered), into the pending
// balance, held until pendingBalanceHoldDays from now. It must run in a
// transaction. An order already credited is left alone: the unique source key
// makes a redelivered event (even one whose dedupe record is gone) credit
// once.
func (s *svc) creditEarnings(ctx context.Context, o customers.OrderEvent) error {
	txs := s.env.DB.Collection(txColl)
	// Looked for first rather than caught as a duplicate: on MongoDB a failed
	// insert aborts the whole transaction.
	err := txs.FindOne(ctx, bson.M{"sourceKey": earningKey(o.OrderID)}).Err()
	if err == nil {
		return nil
	}
	if !store.IsNotFound(err) {
		return err
	}
	hold := s.holdDays(ctx)
	if err := s.openWallet(ctx, storeInfo{ID: o.StoreID, Name: o.StoreName, OwnerUserID: o.StoreOwnerUserID}); err != nil {
		return err
	}
	now := s.now()
	walletID := WalletIDOf(o.StoreID)
	t := txDoc{
		ID: ids.New("walletTransactions"), WalletID: walletID, StoreID: o.StoreID, Type: TxEarning, Amount: o.StoreEarnings,
		Status: TxPending, HeldRemaining: o.StoreEarnings, Description: "Earnings of order " + o.OrderID, SourceKey: earningKey(o.OrderID),
		Metadata: map[string]string{
			"orderId": o.OrderID, "orderTotal": aedText(o.Total),
			"platformCommission": aedText(o.PlatformCommission), "holdDays": fmt.Sprint(hold),
		},
		ReleaseAt: now.Add(time.Duration(hold) * 24 * time.Hour).UnixMilli(), CreatedAt: now.UnixMilli(), UpdatedAt: now.UnixMilli(),
	}
	if _, err := txs.InsertOne(ctx, t); err != nil {
		return err
	}
	w, err := s.change(ctx, walletID, Balances{Pending: o.StoreEarnings}, bson.M{"totalEarnings": o.StoreEarnings, "totalOrders": int64(1)}, nil)
	if err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("payouts: wallet %s vanished while crediting order %s", walletID, o.OrderID)
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletCredited, walletID, contract.WalletEvent{
		WalletID: walletID, StoreID: o.StoreID, StoreName: w.StoreName, StoreOwnerUserID: w.OwnerUserID, TransactionID: t.ID,
		Type: TxEarning, Amount: t.Amount, Available: w.AvailableBalance, Pending: w.PendingBalance, OrderID: o.OrderID, ReleaseAt: t.ReleaseAt,
	}); err != nil {
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
		cur, err := s.env.DB.Collection(txColl).Find(ctx,
			bson.M{"type": TxEarning, "status": TxPending, "releaseAt": bson.M{"$lte": now}},
			options.Find().SetSort(bson.D{{Key: "releaseAt", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(releaseBatch).SetProjection(bson.M{"_id": 1}))
		if err != nil {
			return count, total, err
		}
		var due []txDoc
		if err := cur.All(ctx, &due); err != nil {
			return count, total, err
		}
		fresh := 0
		for _, d := range due {
			if seen[d.ID] {
				continue // released meanwhile by another instance, read before it committed
			}
			seen[d.ID] = true
			fresh++
			var moved money.Fils
			var ok bool
			err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
				var err error
				ok, moved, err = s.release(ctx, d.ID, now)
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
	txs := s.env.DB.Collection(txColl)
	var e txDoc // as it was before the update: its HeldRemaining is what to move
	err = txs.FindOneAndUpdate(ctx,
		bson.M{"_id": earningID, "type": TxEarning, "status": TxPending, "releaseAt": bson.M{"$lte": now}},
		bson.M{"$set": bson.M{"status": TxCompleted, "releasedAt": now, "updatedAt": now}},
		options.FindOneAndUpdate().SetReturnDocument(options.Before)).Decode(&e)
	if store.IsNotFound(err) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	if e.HeldRemaining <= 0 {
		return true, 0, nil // all of it was moved or deducted already: no balance changes, no transaction
	}
	w, err := s.walletByID(ctx, e.WalletID)
	if err != nil {
		return false, 0, err
	}
	if w == nil {
		return false, 0, fmt.Errorf("payouts: the wallet %s of earning %s does not exist", e.WalletID, e.ID)
	}
	moved = min(e.HeldRemaining, max(w.PendingBalance, 0))
	if moved < e.HeldRemaining {
		s.env.Logger.ErrorContext(ctx, "payouts: the pending balance does not cover a held earning (reconcileWallet shows it)",
			"walletId", e.WalletID, "earningId", e.ID, "held", aedText(e.HeldRemaining), "pending", aedText(w.PendingBalance))
	}
	if moved == 0 {
		return true, 0, nil
	}
	if _, err := txs.UpdateOne(ctx, bson.M{"_id": e.ID}, bson.M{"$inc": bson.M{"heldRemaining": -moved}}); err != nil {
		return false, 0, err
	}
	d := Balances{Available: moved, Pending: -moved}
	nw, err := s.change(ctx, e.WalletID, d, nil, nil)
	if err != nil {
		return false, 0, err
	}
	if nw == nil {
		return false, 0, fmt.Errorf("payouts: wallet %s changed under the release of %s", e.WalletID, e.ID)
	}
	orderID := e.Metadata["orderId"]
	meta := map[string]string{"earningId": e.ID, "orderId": orderID}
	if moved < e.Amount {
		meta["heldAmount"] = aedText(e.Amount)
	}
	r := txDoc{ID: ids.New("walletTransactions"), WalletID: e.WalletID, StoreID: e.StoreID, Type: TxRelease, Amount: moved, Status: TxCompleted,
		Description: "Earnings of order " + orderID + " released", Metadata: meta, SourceKey: "release:" + e.ID, CreatedAt: now, UpdatedAt: now}
	if _, err := txs.InsertOne(ctx, r); err != nil {
		return false, 0, err
	}
	if _, err := s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventWalletReleased, e.WalletID, contract.WalletEvent{
		WalletID: e.WalletID, StoreID: e.StoreID, StoreName: nw.StoreName, StoreOwnerUserID: nw.OwnerUserID, TransactionID: r.ID,
		Type: TxRelease, Amount: moved, Available: nw.AvailableBalance, Pending: nw.PendingBalance, OrderID: orderID,
	}); err != nil {
		return false, 0, err
	}
	return true, moved, nil
}

// takeHeld takes amount out of the wallet's held earnings, oldest first, for
// the adjustment adjID (a deduct_pending or move_pending_to_available whose
// change of the pending balance is in the same transaction): each earning's
// HeldRemaining goes down and the take is recorded on it (HeldTaken), so its
// release later moves only what is left of it. What the held earnings do not
// cover comes from the rest of the pending balance (add_pending credits). It
// returns how much came from held earnings. It must run in a transaction.
func (s *svc) takeHeld(ctx context.Context, walletID, adjID string, amount money.Fils, now int64) (money.Fils, error) {
	txs := s.env.DB.Collection(txColl)
	cur, err := txs.Find(ctx, bson.M{"walletId": walletID, "type": TxEarning, "status": TxPending, "heldRemaining": bson.M{"$gt": 0}},
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}).
			SetProjection(bson.M{"_id": 1, "heldRemaining": 1}))
	if err != nil {
		return 0, err
	}
	var held []txDoc
	if err := cur.All(ctx, &held); err != nil {
		return 0, err
	}
	left := amount
	for _, e := range held {
		if left == 0 {
			break
		}
		take := min(left, e.HeldRemaining)
		res, err := txs.UpdateOne(ctx, bson.M{"_id": e.ID, "status": TxPending, "heldRemaining": e.HeldRemaining}, bson.M{
			"$inc":  bson.M{"heldRemaining": -take},
			"$push": bson.M{"heldTaken": heldTake{AdjustmentID: adjID, Amount: take, At: now}},
			"$set":  bson.M{"updatedAt": now},
		})
		if err != nil {
			return 0, err
		}
		if res.MatchedCount != 1 { // released or taken meanwhile: run the whole transaction again
			return 0, store.ErrConflict
		}
		left -= take
	}
	return amount - left, nil
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
