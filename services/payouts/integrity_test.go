package payouts

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

func (ts *testSvc) adjust(t *testing.T, ctx context.Context, storeID, kind string, amount money.Fils) *WalletView {
	t.Helper()
	v, err := ts.adjustWalletBalance(ctx, &adjustArgs{StoreID: storeID, WalletID: domain.WalletIDOf(storeID), AdjustmentType: kind,
		Amount: amount, Reason: "test", AdminUserID: "admin-1"})
	if err != nil {
		t.Fatalf("%s %v: %v", kind, amount, err)
	}
	return v
}

func (ts *testSvc) releaseNow(t *testing.T) (int, money.Fils) {
	t.Helper()
	n, amount, err := ts.releaseDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n, amount
}

// The review's case: with a 7-day hold, A is delivered on day 0, an
// administrator moves 100 AED of pending to available, B is delivered on day
// 1. A's release on day 7 must not move B's money: the move took A's, so
// nothing of A is left to release, and B stays pending until day 8.
func TestReleaseNeverTakesAnotherEarningsMoney(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 10000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 7}
	storeID := ids.New("stores")
	ctx := context.Background()
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"})
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 10000)) // A, 100 AED
	ts.adjust(t, ctx, storeID, contract.AdjustMovePendingToAvailable, 10000)
	ts.clock.Advance(24 * time.Hour)
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 6000)) // B, 60 AED
	ts.reconciled(t, storeID)

	ts.clock.Advance(6 * 24 * time.Hour) // day 7: A is due, B is not
	if n, moved := ts.releaseNow(t); n != 1 || moved != 0 {
		t.Fatalf("day 7: released %d earnings, %v fils; want A's (nothing left of it)", n, moved)
	}
	if w := ts.wallet(t, storeID); w.AvailableBalance != 10000 || w.PendingBalance != 6000 {
		t.Fatalf("day 7: wallet %+v; B's 60 AED must still be pending", w)
	}
	if n := ts.count(t, storage.TxColl, bson.M{"type": domain.TxRelease}); n != 0 {
		t.Fatalf("day 7: %d release transactions", n)
	}
	ts.reconciled(t, storeID)

	ts.clock.Advance(24 * time.Hour) // day 8: B is due
	if n, moved := ts.releaseNow(t); n != 1 || moved != 6000 {
		t.Fatalf("day 8: released %d, %v", n, moved)
	}
	if w := ts.wallet(t, storeID); w.AvailableBalance != 16000 || w.PendingBalance != 0 {
		t.Fatalf("day 8: wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}

// Deductions and moves take held earnings oldest first, and only then other
// pending credits (add_pending); each release moves what is left of its own
// earning.
func TestPendingLoweringsTakeHeldEarningsOldestFirst(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{HoldDays: 7}
	storeID := ids.New("stores")
	ctx := context.Background()
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 3000)) // A
	ts.clock.Advance(time.Hour)
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 4000)) // B
	ts.adjust(t, ctx, storeID, contract.AdjustAddPending, 500)                                       // free pending
	ts.adjust(t, ctx, storeID, contract.AdjustDeductPending, 2000)                                   // A: 1000 left
	ts.adjust(t, ctx, storeID, contract.AdjustMovePendingToAvailable, 1500)                          // A: 0, B: 3500
	ts.reconciled(t, storeID)
	var es []domain.Transaction
	cur, err := ts.db.Collection(storage.TxColl).Find(ctx, bson.M{"type": domain.TxEarning})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &es); err != nil {
		t.Fatal(err)
	}
	held := map[money.Fils]money.Fils{}
	for _, e := range es {
		held[e.Amount] = e.HeldRemaining
	}
	if held[3000] != 0 || held[4000] != 3500 {
		t.Fatalf("held after the adjustments: %v", held)
	}
	// A deduction beyond the held earnings takes them whole (3500 of B),
	// then the rest (100) from the free pending credit (500).
	ts.adjust(t, ctx, storeID, contract.AdjustDeductPending, 3600)
	ts.reconciled(t, storeID)
	ts.clock.Advance(8 * 24 * time.Hour)
	if n, moved := ts.releaseNow(t); n != 2 || moved != 0 {
		t.Fatalf("released %d, %v; both earnings were taken whole", n, moved)
	}
	if w := ts.wallet(t, storeID); w.AvailableBalance != 1500 || w.PendingBalance != 400 {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}

func ownerCtx(ctx context.Context, storeID string) context.Context {
	ctx = auth.WithIdentity(ctx, &auth.Identity{Sub: "owner-1"})
	return ops.WithStore(ctx, &ops.StoreRef{ID: storeID, Name: "Bakery", OwnerUserID: "owner-1"})
}

func payoutArgsOf(storeID string, amount money.Fils) *requestPayoutArgs {
	return &requestPayoutArgs{StoreID: storeID, Amount: amount, BankDetails: bankDetailsArgs{
		IBAN: "AE07 0331 2345 6789 0123 456", BankName: "Bank", AccountHolderName: "Sara"}}
}

// A move whose payout transaction is missing or already settled is aborted
// (INTERNAL) and changes nothing.
func TestMoveNeedsItsPayoutTransaction(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 1000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 0}
	storeID := ids.New("stores")
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 50000))
	ts.setStore(catalog.StoreEvent{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"}) // the catalog's, which approving asks
	ctx := context.Background()
	id, err := ts.requestPayout(ownerCtx(ctx, storeID), payoutArgsOf(storeID, 10000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.db.Collection(storage.TxColl).UpdateOne(ctx, bson.M{"type": domain.TxPayout}, bson.M{"$set": bson.M{"status": domain.TxCancelled}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.approvePayout(ctx, &payoutArgs{PayoutID: id, AdminUserID: "admin-1"}); apperr.From(err).Code != apperr.Internal {
		t.Fatalf("approving with the transaction settled: %v", err)
	}
	var p domain.Payout
	if err := ts.db.Collection(storage.PayoutsColl).FindOne(ctx, bson.M{"_id": id}).Decode(&p); err != nil || p.Status != domain.StatusRequested {
		t.Fatalf("payout after the aborted move: %+v %v", p, err)
	}
	// reconcileWallet names it.
	r, err := ts.reconcileWallet(ctx, &reconcileArgs{StoreID: storeID})
	if err != nil || r.Consistent || !strings.Contains(strings.Join(r.Inconsistencies, "\n"), "payout "+id+" is requested") {
		t.Fatalf("reconciliation: %+v %v", r, err)
	}
}

// reconcileWallet reports what the sums cannot show.
func TestReconcileFindsInconsistencies(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 1000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 7}
	storeID := ids.New("stores")
	ctx := context.Background()
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 5000))
	ts.adjust(t, ctx, storeID, contract.AdjustAddBalance, 20000)
	id, err := ts.requestPayout(ownerCtx(ctx, storeID), payoutArgsOf(storeID, 10000))
	if err != nil {
		t.Fatal(err)
	}
	ts.reconciled(t, storeID)
	expect := func(what string) {
		t.Helper()
		r, err := ts.reconcileWallet(ctx, &reconcileArgs{StoreID: storeID})
		if err != nil || r.Consistent || !strings.Contains(strings.Join(r.Inconsistencies, "\n"), what) {
			t.Fatalf("want %q: %+v %v", what, r, err)
		}
	}
	// A second payout transaction for the payout.
	twin := domain.Transaction{ID: ids.New("walletTransactions"), WalletID: domain.WalletIDOf(storeID), StoreID: storeID, Type: domain.TxPayout, Amount: 0,
		Status: domain.TxPending, SourceKey: "twin", Metadata: map[string]string{"payoutId": id}}
	if _, err := ts.db.Collection(storage.TxColl).InsertOne(ctx, twin); err != nil {
		t.Fatal(err)
	}
	expect("payout " + id + " has 2 payout transactions")
	if _, err := ts.db.Collection(storage.TxColl).DeleteOne(ctx, bson.M{"_id": twin.ID}); err != nil {
		t.Fatal(err)
	}
	// An earning whose held remainder does not add up.
	if _, err := ts.db.Collection(storage.TxColl).UpdateOne(ctx, bson.M{"type": domain.TxEarning}, bson.M{"$set": bson.M{"heldRemaining": money.Fils(4000)}}); err != nil {
		t.Fatal(err)
	}
	expect("do not add up")
	if _, err := ts.db.Collection(storage.TxColl).UpdateOne(ctx, bson.M{"type": domain.TxEarning}, bson.M{"$set": bson.M{"heldRemaining": money.Fils(5000)}}); err != nil {
		t.Fatal(err)
	}
	// A negative pending balance (and the ledger disagreeing); a negative
	// available one is a debt (docs/adr/0147), not an inconsistency.
	if _, err := ts.db.Collection(storage.WalletsColl).UpdateOne(ctx, bson.M{"_id": domain.WalletIDOf(storeID)}, bson.M{"$set": bson.M{"pendingBalance": money.Fils(-1)}}); err != nil {
		t.Fatal(err)
	}
	expect("a stored balance is negative")
}
