package payouts

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// platformWorld is a moneyWorld whose customers service also answers
// getMoneyTotals, summed from its orders and the payments service's lost
// disputes as the customers service sums them (domain.Order.AddToTotals).
func platformWorld(t *testing.T) *moneyWorld {
	w := newMoneyWorld(t)
	w.svc.moneyTotals = func(context.Context) (*customers.MoneyTotals, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.dmu.Lock()
		defer w.dmu.Unlock()
		var out customers.MoneyTotals
		for id, o := range w.orders {
			var lost money.Fils
			for _, d := range w.disputes {
				if d.OrderID == id && d.Status == payments.DisputeLost {
					lost += d.Amount
				}
			}
			out.Orders++
			out.Captured += o.AmountPaid
			out.Refunded += o.RefundedAmount
			out.DisputesLost += lost
			if o.Status != customers.StatusDelivered {
				out.NotDelivered += o.AmountPaid - o.RefundedAmount - lost
				continue
			}
			out.Delivered++
			out.PaymentDifferences += o.AmountPaid - o.Total
		}
		return &out, nil
	}
	return w
}

func (w *moneyWorld) platformBalanced(t *testing.T, step string) *PlatformReconciliation {
	t.Helper()
	r, err := w.reconcilePlatform(context.Background(), &reconcilePlatformArgs{AdminUserID: "admin-1"})
	if err != nil {
		t.Fatalf("after %s: %v", step, err)
	}
	if !r.Balanced || r.DifferenceFils != 0 || r.Difference != 0 {
		t.Fatalf("after %s: not balanced: difference %d fils, terms %v", step, r.DifferenceFils, r.TermsFils)
	}
	return r
}

// TestReconcilePlatformSumsTheServicesRecords: a history through the
// service's own consumer and operations (orders of 90.00 with commission
// 6.50: D1's figures), the platform balanced after each step, and the
// terms as the records make them.
func TestReconcilePlatformSumsTheServicesRecords(t *testing.T) {
	w := platformWorld(t)
	ctx := context.Background()
	cfg := *w.testSvc.settings
	cfg.MinPayout = 10_00
	w.testSvc.settings = &cfg
	w.platformBalanced(t, "nothing")
	a := w.order(customers.StatusOutForDelivery)
	r := w.platformBalanced(t, "an order paid")
	if r.TermsFils["captured"] != 9000 || r.TermsFils["notDelivered"] != 9000 || r.Orders != 1 || r.Delivered != 0 {
		t.Fatalf("paid: %+v", r)
	}
	w.deliverOrder(t, a)
	w.refund(t, a, 3000, customers.RefundStatusSucceeded) // from the held earning: 2783 (D1)
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.platformBalanced(t, "delivered, 30.00 refunded, released")
	p1, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, 3000))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, 1500))
	if err != nil {
		t.Fatal(err)
	}
	p3, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, 1000))
	if err != nil {
		t.Fatal(err)
	}
	w.platformBalanced(t, "three payouts requested")
	for _, id := range []string{p1, p2, p3} {
		if _, err := w.approvePayout(ctx, &payoutArgs{PayoutID: id, AdminUserID: "admin-1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.markPayoutAsProcessing(ctx, &processingArgs{PayoutID: id, AdminUserID: "admin-1", ProcessingMethod: "manual"}); err != nil {
			t.Fatal(err)
		}
	}
	yes, no := true, false
	if _, err := w.completePayout(ctx, &completeArgs{PayoutID: p1, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.markPayoutAsFailed(ctx, &failArgs{PayoutID: p2, AdminUserID: "admin-1", FailureReason: "bank", RestoreBalance: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.markPayoutAsFailed(ctx, &failArgs{PayoutID: p3, AdminUserID: "admin-1", FailureReason: "bank", RestoreBalance: &no}); err != nil {
		t.Fatal(err)
	}
	w.platformBalanced(t, "a payout completed, one failed restored, one failed kept")
	w.dispute(t, "dp_1", a, 6000, payments.DisputeOpen)
	w.platformBalanced(t, "the rest disputed")
	w.dispute(t, "dp_1", a, 6000, payments.DisputeLost)
	w.platformBalanced(t, "lost, the fee charged to the store")
	if _, err := w.adjustWalletBalance(ctx, &adjustArgs{StoreID: w.store, WalletID: domain.WalletIDOf(w.store), AdjustmentType: contract.AdjustAddBalance,
		Amount: 2500, Reason: "goodwill", AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	b := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, b)
	s := *w.testSvc.settings
	s.DisputeFeeChargedTo = domain.FeeChargedToPlatform
	w.testSvc.settings = &s
	w.dispute(t, "dp_2", b, 9000, payments.DisputeOpen)
	w.dispute(t, "dp_2", b, 9000, payments.DisputeLost)
	r = w.platformBalanced(t, "a bonus; a second order lost in a dispute, the fee borne by the platform")

	// Order a: 9000 paid, 3000 refunded, 6000 lost: the commission is all
	// reversed. Order b: 9000 lost. The store: 8350 − 2783 credited, the
	// payouts of 30.00 (completed: fee 2.00) and 10.00 (failed, kept) out,
	// the loss of 5567 and a fee of 15.00, a bonus of 25.00, b's 8350 in and
	// out: 8350 − 2783 − 3000 − 1000 − 5567 − 1500 + 2500 = −3000.
	want := map[string]int64{"captured": 18000, "refunded": 3000, "disputesLost": 15000, "otherCurrencyDelivered": 0, "notDelivered": 0, "paymentDifferences": 0,
		"excess": 0, "commissionKept": 0, "storeBalances": -3000, "openPayouts": 0, "paidOut": 2800, "payoutFees": 200, "failedKept": 1000,
		"disputeFeesCharged": 1500, "adjustmentsNet": 2500, "disputeFeesBorneByPlatform": 1500}
	for k, v := range want {
		if r.TermsFils[k] != v {
			t.Errorf("term %s: %d fils, want %d (%v)", k, r.TermsFils[k], v, r.TermsFils)
		}
	}
	if len(r.TermsFils) != len(want) || r.Terms["storeBalances"] != -30 || r.Terms["paidOut"] != 28 || r.AsOf != w.clock.Now().UnixMilli() || r.Equation == "" {
		t.Errorf("answer %+v", r)
	}

	// Money that moves outside the rules shows as a difference.
	if _, err := w.db.Collection(storage.WalletsColl).UpdateOne(ctx, bson.M{"_id": domain.WalletIDOf(w.store)},
		bson.M{"$inc": bson.M{"availableBalance": 700}}); err != nil {
		t.Fatal(err)
	}
	r, err = w.reconcilePlatform(ctx, &reconcilePlatformArgs{AdminUserID: "admin-1"})
	if err != nil || r.Balanced || r.DifferenceFils != -700 || r.Difference != -7 {
		t.Fatalf("a wallet credited without a transaction: %+v %v", r, err)
	}
}
