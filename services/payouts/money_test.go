package payouts

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// moneyWorld is a store with the D1 order of the contracts (total 9000
// fils, commission 650, store earnings 8350) and fakes of the two services
// that confirm refunds and disputes: the customers service's getOrderFacts
// (ts.orders, as the other tests fake it) and the payments service's
// payments.money.getFacts (disputes below: our own fake, the payments side
// being built in parallel).
type moneyWorld struct {
	*testSvc
	store    string
	dmu      sync.Mutex
	disputes map[string]payments.Dispute
	askedPay int
}

func newMoneyWorld(t *testing.T) *moneyWorld {
	t.Helper()
	w := &moneyWorld{testSvc: newTestSvc(t), store: ids.New("stores"), disputes: map[string]payments.Dispute{}}
	w.svc.moneyFacts = func(_ context.Context, a payments.MoneyFactsArgs) (*payments.MoneyFacts, error) {
		w.dmu.Lock()
		defer w.dmu.Unlock()
		w.askedPay++
		out := &payments.MoneyFacts{Disputes: map[string]payments.Dispute{}}
		for _, id := range a.DisputeIDs {
			if d, ok := w.disputes[id]; ok {
				out.Disputes[id] = d
			}
		}
		return out, nil
	}
	w.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-1"})
	return w
}

// order records a paid order of the D1 figures in status, and returns its id.
func (w *moneyWorld) order(status string) string {
	id := ids.New("orders")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.orders[id] = customers.OrderFacts{OrderID: id, StoreID: w.store, StoreName: "Bakery", StoreOwnerUserID: "owner-1", Status: status,
		Total: 9000, PlatformCommission: 650, StoreEarnings: 8350, PaymentStatus: "paid", AmountPaid: 9000, Currency: "aed"}
	return id
}

// deliverOrder marks the order delivered at the customers service and
// delivers its event.
func (w *moneyWorld) deliverOrder(t *testing.T, orderID string) {
	t.Helper()
	w.mu.Lock()
	f := w.orders[orderID]
	f.Status = customers.StatusDelivered
	w.orders[orderID] = f
	w.mu.Unlock()
	w.deliver(t, customers.EventOrderStatusChanged, customers.OrderEvent{OrderID: orderID, StoreID: w.store, To: customers.StatusDelivered})
}

// refund records a refund of the order at the customers service in status
// and delivers its order.refunded (with amount as the event says it).
func (w *moneyWorld) refund(t *testing.T, orderID string, amount money.Fils, status string) string {
	t.Helper()
	id := "ref_" + ids.New("orders")[4:]
	w.mu.Lock()
	f := w.orders[orderID]
	f.Refunds = append(f.Refunds, customers.RefundFact{RefundID: id, Amount: amount, Status: status})
	if status == customers.RefundStatusSucceeded {
		f.RefundedAmount += amount
	}
	w.orders[orderID] = f
	w.mu.Unlock()
	w.refunded(t, orderID, id, amount)
	return id
}

func (w *moneyWorld) refunded(t *testing.T, orderID, refundID string, amount money.Fils) {
	t.Helper()
	w.deliver(t, customers.EventOrderRefunded, customers.OrderRefunded{RefundID: refundID, OrderID: orderID, StoreID: w.store, Amount: amount, Currency: "aed"})
}

// dispute records the dispute at the payments service and delivers its
// event.
func (w *moneyWorld) dispute(t *testing.T, id, orderID string, amount money.Fils, status string) {
	t.Helper()
	w.dmu.Lock()
	w.disputes[id] = payments.Dispute{DisputeID: id, OrderID: orderID, StoreID: w.store, Amount: amount, Currency: "aed", Status: status}
	w.dmu.Unlock()
	typ := payments.EventDisputeOpened
	if status != payments.DisputeOpen {
		typ = payments.EventDisputeClosed
	}
	w.deliver(t, typ, payments.Dispute{DisputeID: id, OrderID: orderID, Status: status, Amount: amount})
}

func (w *moneyWorld) balances(t *testing.T) domain.Balances {
	t.Helper()
	wl := w.wallet(t, w.store)
	return wl.Balances()
}

func (w *moneyWorld) expect(t *testing.T, step string, want domain.Balances) {
	t.Helper()
	if got := w.balances(t); got != want {
		t.Fatalf("after %s: balances %+v, want %+v", step, got, want)
	}
	w.reconciled(t, w.store)
	w.statementAgrees(t)
}

// statementAgrees checks that the statement journal's last entry is the
// wallet, and that its entries chain: each one's balance is the one before
// plus its amount.
func (w *moneyWorld) statementAgrees(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	es, err := w.statement.Between(ctx, domain.WalletIDOf(w.store), 0, 1<<62, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	var bal money.Fils
	var after domain.Balances
	for i, e := range es {
		if e.Seq != int64(i+1) || e.Balance != bal+e.Amount || e.After != after.Plus(e.Change) || e.Balance != e.After.Sum() {
			t.Fatalf("entry %d does not chain: %+v (balance before %d, %+v)", i, e, bal, after)
		}
		bal, after = e.Balance, e.After
	}
	if wl := w.wallet(t, w.store); after != wl.Balances() || wl.MoveSeq != int64(len(es)) {
		t.Fatalf("statement ends at %+v (%d entries), the wallet is %+v (seq %d)", after, len(es), wl.Balances(), wl.MoveSeq)
	}
}

// moveEvents are the outbox's wallet move events of type typ.
func (w *moneyWorld) moveEvents(t *testing.T, typ string) []contract.WalletMoveEvent {
	t.Helper()
	cur, err := w.db.Collection("outbox").Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Envelope string `bson:"envelope"`
	}
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	var out []contract.WalletMoveEvent
	for _, d := range docs {
		var env events.Envelope
		if err := json.Unmarshal([]byte(d.Envelope), &env); err != nil {
			t.Fatal(err)
		}
		if env.Type == typ {
			var ev contract.WalletMoveEvent
			if err := json.Unmarshal(env.Data, &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}

const day = 24 * time.Hour

// A refund while the order's earning is held is taken from it (pending);
// its release then moves only what is left.
func TestRefundBeforeReleaseTakesTheHeldEarning(t *testing.T) {
	w := newMoneyWorld(t)
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.expect(t, "the delivery", domain.Balances{Pending: 8350})
	w.refund(t, o, 3000, customers.RefundStatusSucceeded)
	w.expect(t, "a refund of 30.00: store share 2783 from pending", domain.Balances{Pending: 5567})
	evs := w.moveEvents(t, contract.EventWalletRefundReversed)
	if len(evs) != 1 || evs[0].Amount != 2783 || evs[0].FromPending != 2783 || evs[0].Commission != 217 || evs[0].Pending != 5567 || len(evs[0].TransactionIDs) != 1 {
		t.Fatalf("events %+v", evs)
	}
	w.clock.Advance(7 * day)
	if n, moved := w.releaseNow(t); n != 1 || moved != 5567 {
		t.Fatalf("released %d, %d", n, moved)
	}
	w.expect(t, "the release", domain.Balances{Available: 5567})
}

// A refund after the release comes out of available and may make it
// negative: a debt, which refuses payouts (before the amount rules) until
// the next release repays it.
func TestRefundAfterReleaseMakesTheWalletNegative(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	cfg := *w.testSvc.settings
	cfg.MinPayout = 50_00 // the D5 example pays out 80.00 of a 90.00 order
	w.testSvc.settings = &cfg
	a := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, a)
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	if _, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, 8000)); err != nil {
		t.Fatal(err)
	}
	w.expect(t, "a payout of 80.00", domain.Balances{Available: 350})
	w.refund(t, a, 9000, customers.RefundStatusSucceeded)
	w.expect(t, "the full refund", domain.Balances{Available: -8000})
	// In debt: refused, naming the debt, even for an amount the rules refuse.
	for _, amount := range []money.Fils{100_00, 1} {
		_, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, amount))
		e := apperr.From(err)
		if e.Code != apperr.FailedPrecondition || e.Details["reason"] != "wallet_in_debt" || e.Details["debt"] != 80.0 {
			t.Fatalf("payout of %d in debt: %v %+v", amount, err, e.Details)
		}
	}
	v, err := w.getWallet(ownerCtx(ctx, w.store), &storeArgs{StoreID: w.store})
	if err != nil || v.AvailableBalance != -80 || v.Debt != 80 || v.DisputedBalance != 0 {
		t.Fatalf("getWallet %+v %v", v, err)
	}
	b := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, b)
	w.expect(t, "the next earning (held: the debt stays)", domain.Balances{Available: -8000, Pending: 8350})
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.expect(t, "its release repays the debt first", domain.Balances{Available: 350})
	rel, err := w.ledger.BySource(ctx, "release:"+w.earningOf(t, b))
	if err != nil || rel == nil || rel.Metadata["debtRepaid"] != "80.00" {
		t.Fatalf("release %+v %v", rel, err)
	}
	// The payout transaction of the store survives in listTransactions as the
	// interface has it; the refund is a transaction of its own.
	r, err := w.listTransactions(ownerCtx(ctx, w.store), &storePageArgs{StoreID: w.store, PaginationOpts: page.Opts{NumItems: 50}})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, tx := range r.Page {
		types[tx.Type]++
	}
	if types["refund"] != 1 || types["earning"] != 2 || types["release"] != 2 || types["payout"] != 1 || len(r.Page) != 6 {
		t.Fatalf("transactions %+v", types)
	}
}

func (w *moneyWorld) earningOf(t *testing.T, orderID string) string {
	t.Helper()
	e, err := w.ledger.BySource(context.Background(), domain.EarningKey(orderID))
	if err != nil || e == nil {
		t.Fatalf("earning of %s: %v", orderID, err)
	}
	return e.ID
}

// A refund of an order not delivered yet moves nothing now and lowers the
// credit at delivery; reconcileWallet confirms the lowered earning.
func TestRefundBeforeDeliveryLowersTheCredit(t *testing.T) {
	w := newMoneyWorld(t)
	o := w.order(customers.StatusPreparing)
	w.refund(t, o, 3000, customers.RefundStatusSucceeded)
	w.expect(t, "a refund before the delivery", domain.Balances{})
	w.deliverOrder(t, o)
	w.expect(t, "the delivery credits 8350 − 2783", domain.Balances{Pending: 5567})
	w.refund(t, o, 6000, customers.RefundStatusSucceeded)
	w.expect(t, "the rest refunded: exactly nothing left", domain.Balances{})
	om, _ := w.svc.orders.Get(context.Background(), o)
	if om.Reversed != 9000 || om.CommissionReversed != 650 {
		t.Fatalf("%+v", om)
	}
}

// Refund events are confirmed with the customers service (not in its
// refunds, not succeeded, another amount: nothing moves) and applied once,
// whatever the redeliveries; partial refunds in any order sum exactly.
func TestRefundEventsAreConfirmedAndAppliedOnce(t *testing.T) {
	w := newMoneyWorld(t)
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.refunded(t, o, "ref_"+ids.New("orders")[4:], 3000) // forged: no such refund
	w.refund(t, o, 3000, customers.RefundStatusRequested)
	w.refund(t, o, 3000, customers.RefundStatusFailed)
	id := "ref_" + ids.New("orders")[4:]
	w.mu.Lock()
	f := w.orders[o]
	f.Refunds = append(f.Refunds, customers.RefundFact{RefundID: id, Amount: 1000, Status: customers.RefundStatusSucceeded})
	w.orders[o] = f
	w.mu.Unlock()
	w.refunded(t, o, id, 9000) // the event's amount is not the refund's
	w.expect(t, "unconfirmed refunds", domain.Balances{Pending: 8350})
	w.refunded(t, o, id, 1000)
	w.refunded(t, o, id, 1000) // a redelivery under a fresh event id
	w.expect(t, "one refund of 10.00 (store 928)", domain.Balances{Pending: 8350 - 928})
	w.refund(t, o, 4999, customers.RefundStatusSucceeded)
	w.refund(t, o, 3001, customers.RefundStatusSucceeded)
	w.expect(t, "the rest in two parts", domain.Balances{})
	if n := len(w.moveEvents(t, contract.EventWalletRefundReversed)); n != 3 {
		t.Fatalf("%d refund events", n)
	}
}

// Disputes: opened, the store's share moves into disputed (from the held
// earning first, else available, which may go negative); won, it comes
// back to available; lost, it leaves, with the fee charged to the store or
// borne by the platform as the settings say when it is lost. Redelivered
// events move nothing again.
func TestDisputes(t *testing.T) {
	w := newMoneyWorld(t)
	released := func() string {
		o := w.order(customers.StatusOutForDelivery)
		w.deliverOrder(t, o)
		w.clock.Advance(7 * day)
		w.releaseNow(t)
		return o
	}
	a := released()
	w.expect(t, "a released order", domain.Balances{Available: 8350})
	w.dispute(t, "dp_a", a, 9000, payments.DisputeOpen)
	w.dispute(t, "dp_a", a, 9000, payments.DisputeOpen)
	w.expect(t, "a dispute of the whole order", domain.Balances{Disputed: 8350})
	w.dispute(t, "dp_a", a, 9000, payments.DisputeWon)
	w.dispute(t, "dp_a", a, 9000, payments.DisputeWon)
	w.expect(t, "won", domain.Balances{Available: 8350})

	// Lost, the fee charged to the store: D4's figures.
	w.dispute(t, "dp_b", a, 9000, payments.DisputeOpen)
	w.dispute(t, "dp_b", a, 9000, payments.DisputeLost)
	w.dispute(t, "dp_b", a, 9000, payments.DisputeLost)
	w.expect(t, "lost, the store pays the fee", domain.Balances{Available: -1500})
	om, _ := w.svc.orders.Get(context.Background(), a)
	if d := om.Dispute("dp_b"); d.Fee != 1500 || d.FeeChargedTo != "store" || om.Reversed != 9000 || om.CommissionReversed != 650 {
		t.Fatalf("%+v", om)
	}
	if evs := w.moveEvents(t, contract.EventWalletDisputeDebited); len(evs) != 1 || evs[0].Amount != 8350 || evs[0].DisputeFee != 1500 || evs[0].Commission != 650 || evs[0].Available != -1500 {
		t.Fatalf("%+v", evs)
	}

	// Lost, the fee borne by the platform (setting changed before the
	// loss); the dispute held from the still-held earning (pending) first.
	b := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, b)
	w.dispute(t, "dp_c", b, 3000, payments.DisputeOpen)
	w.expect(t, "a partial dispute while held: 2783 from pending", domain.Balances{Available: -1500, Pending: 8350 - 2783, Disputed: 2783})
	s := *w.testSvc.settings
	s.DisputeFee, s.DisputeFeeChargedTo = 20_00, domain.FeeChargedToPlatform
	w.testSvc.settings = &s
	w.dispute(t, "dp_c", b, 3000, payments.DisputeLost)
	w.expect(t, "lost, the platform bears the fee", domain.Balances{Available: -1500, Pending: 8350 - 2783})
	fees, err := w.fees.All(context.Background())
	if err != nil || len(fees) != 1 || fees[0].ID != "dp_c" || fees[0].Amount != 20_00 {
		t.Fatalf("platform fees %+v %v", fees, err)
	}
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.expect(t, "the release repays the debt", domain.Balances{Available: 8350 - 2783 - 1500})

	// A dispute event the payments service does not confirm moves nothing.
	w.deliver(t, payments.EventDisputeOpened, payments.Dispute{DisputeID: "dp_forged", OrderID: b, Amount: 9000, Status: payments.DisputeOpen})
	w.expect(t, "a forged dispute", domain.Balances{Available: 8350 - 2783 - 1500})
}

// A dispute opened before the order is credited holds its share when the
// earning is credited.
func TestDisputeBeforeTheCredit(t *testing.T) {
	w := newMoneyWorld(t)
	o := w.order(customers.StatusOutForDelivery)
	w.dispute(t, "dp_1", o, 3000, payments.DisputeOpen)
	w.deliverOrder(t, o)
	w.expect(t, "credited with a dispute open", domain.Balances{Pending: 8350 - 2783, Disputed: 2783})
	w.dispute(t, "dp_1", o, 3000, payments.DisputeWon)
	w.expect(t, "won: back to the held earning", domain.Balances{Pending: 8350})
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.expect(t, "released at the earning's own time", domain.Balances{Available: 8350})
}

// A dispute closed before the order is credited: nothing of the order was
// in the wallet, so nothing was held. Lost, its store share lowers the
// credit, as a refund before the delivery does, and only the fee leaves
// available now (the share is not also taken from available). Won,
// nothing moves and the credit is the whole earning.
func TestDisputeClosedBeforeTheCredit(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	o := w.order(customers.StatusOutForDelivery)
	w.dispute(t, "dp_1", o, 3000, payments.DisputeOpen)
	w.expect(t, "opened before the credit: nothing held", domain.Balances{})
	w.dispute(t, "dp_1", o, 3000, payments.DisputeLost)
	w.dispute(t, "dp_1", o, 3000, payments.DisputeLost)
	w.expect(t, "lost before the credit: only the fee", domain.Balances{Available: -1500})
	w.deliverOrder(t, o)
	w.expect(t, "the credit lowered by the share 2783", domain.Balances{Available: -1500, Pending: 8350 - 2783})
	om, _ := w.svc.orders.Get(ctx, o)
	if e, _ := w.ledger.Get(ctx, om.EarningID); e == nil || e.Amount != 8350-2783 || e.ReversedBeforeCredit != 2783 {
		t.Fatalf("earning %+v", e)
	}
	w.refund(t, o, 6000, customers.RefundStatusSucceeded)
	w.expect(t, "the rest refunded: the earning exactly emptied", domain.Balances{Available: -1500})
	om, _ = w.svc.orders.Get(ctx, o)
	if om.Reversed != 9000 || om.CommissionReversed != 650 || om.StoreBeforeCredit != 2783 {
		t.Fatalf("%+v", om)
	}

	p := w.order(customers.StatusOutForDelivery)
	w.dispute(t, "dp_2", p, 3000, payments.DisputeOpen)
	w.dispute(t, "dp_2", p, 3000, payments.DisputeWon)
	w.expect(t, "won before the credit: nothing moves", domain.Balances{Available: -1500})
	w.deliverOrder(t, p)
	w.expect(t, "the whole earning credited, nothing held", domain.Balances{Available: -1500, Pending: 8350})
}

// A won dispute's share goes back where it was held from: what came from
// the order's held earning back to that earning (pending, released at the
// earning's release time), what came from available back to available. An
// earning whose release time has come by the win (or released meanwhile)
// gets nothing back: that part goes to available.
func TestDisputeWonReturnsTheHeldPartToTheEarning(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	// A deduct_pending of 70.00 takes it from the held earning, which then
	// holds 1350: the hold of 2783 takes 1350 from it and 1433 from
	// available.
	w.adjust(t, ctx, w.store, contract.AdjustAddBalance, 50_00)
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.adjust(t, ctx, w.store, contract.AdjustDeductPending, 70_00)
	w.expect(t, "credited, 70.00 deducted", domain.Balances{Available: 50_00, Pending: 1350})
	w.dispute(t, "dp_1", o, 3000, payments.DisputeOpen)
	w.expect(t, "held 1350 from pending, 1433 from available", domain.Balances{Available: 50_00 - 1433, Disputed: 2783})
	w.clock.Advance(3 * day)
	w.dispute(t, "dp_1", o, 3000, payments.DisputeWon)
	w.dispute(t, "dp_1", o, 3000, payments.DisputeWon)
	w.expect(t, "won", domain.Balances{Available: 50_00, Pending: 1350})
	om, _ := w.svc.orders.Get(ctx, o)
	e, _ := w.ledger.Get(ctx, om.EarningID)
	if e.HeldRemaining != 1350 || e.Status != domain.TxPending {
		t.Fatalf("earning %+v", e)
	}
	if evs := w.moveEvents(t, contract.EventWalletDisputeRelease); len(evs) != 1 || evs[0].Amount != 2783 || evs[0].ToPending != 1350 || evs[0].ToAvailable != 1433 {
		t.Fatalf("%+v", evs)
	}
	es, _ := w.statement.Between(ctx, domain.WalletIDOf(w.store), 0, 1<<62, 100)
	last := es[len(es)-1]
	if last.Kind != domain.KindDisputeRelease || last.Amount != 0 || last.Change != (domain.Balances{Available: 1433, Pending: 1350, Disputed: -2783}) || last.Balance != 50_00+1350 {
		t.Fatalf("statement entry %+v", last)
	}
	// Not released before its time; released then, with what came back.
	w.clock.Advance(3 * day)
	w.releaseNow(t)
	w.expect(t, "not due yet", domain.Balances{Available: 50_00, Pending: 1350})
	w.clock.Advance(1 * day)
	w.releaseNow(t)
	w.expect(t, "released at its time", domain.Balances{Available: 50_00 + 1350})

	// Won after the earning's release time: all back to available, even
	// though the release has not run yet.
	p := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, p)
	w.dispute(t, "dp_2", p, 3000, payments.DisputeOpen)
	w.expect(t, "held from pending", domain.Balances{Available: 50_00 + 1350, Pending: 8350 - 2783, Disputed: 2783})
	w.clock.Advance(7 * day)
	w.dispute(t, "dp_2", p, 3000, payments.DisputeWon)
	w.expect(t, "won after the release time", domain.Balances{Available: 50_00 + 1350 + 2783, Pending: 8350 - 2783})
	w.releaseNow(t)
	w.expect(t, "released", domain.Balances{Available: 50_00 + 1350 + 8350})

	// Won after the earning was released: back to available.
	q := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, q)
	w.dispute(t, "dp_3", q, 9000, payments.DisputeOpen)
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.expect(t, "released while disputed", domain.Balances{Available: 50_00 + 1350 + 8350, Disputed: 8350})
	w.dispute(t, "dp_3", q, 9000, payments.DisputeWon)
	w.expect(t, "won after the release", domain.Balances{Available: 50_00 + 1350 + 2*8350})
}

// A lost dispute whose store share is below what it held (another dispute
// of the order lost first lowered what is left) returns the rest as a won
// dispute does: what the hold took from the order's still-held earning
// back to it (pending, released at the earning's own time), not to
// available early.
func TestDisputeLostReturnsTheHeldPartToTheEarning(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	s := *w.testSvc.settings
	s.DisputeFee = 0
	w.testSvc.settings = &s
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.dispute(t, "dp_1", o, 6000, payments.DisputeOpen)
	w.expect(t, "dp_1 held 5567 from pending", domain.Balances{Pending: 8350 - 5567, Disputed: 5567})
	w.dispute(t, "dp_2", o, 6000, payments.DisputeOpen)
	w.expect(t, "dp_2 held 2783 from pending, 2784 from available", domain.Balances{Available: -2784, Disputed: 2 * 5567})
	w.clock.Advance(3 * day)
	w.dispute(t, "dp_2", o, 6000, payments.DisputeLost)
	w.expect(t, "dp_2 lost its share", domain.Balances{Available: -2784, Disputed: 5567})
	// dp_1's share is now 2783 (3000 of the order left): of its 5567 held,
	// 2784 goes back to the earning it was held from.
	w.dispute(t, "dp_1", o, 6000, payments.DisputeLost)
	w.dispute(t, "dp_1", o, 6000, payments.DisputeLost)
	w.expect(t, "dp_1 lost, the rest back to the earning", domain.Balances{Available: -2784, Pending: 2784})
	om, _ := w.svc.orders.Get(ctx, o)
	e, _ := w.ledger.Get(ctx, om.EarningID)
	if e.HeldRemaining != 2784 || e.Status != domain.TxPending {
		t.Fatalf("earning %+v", e)
	}
	es, _ := w.statement.Between(ctx, domain.WalletIDOf(w.store), 0, 1<<62, 100)
	last := es[len(es)-1]
	if last.Kind != domain.KindDisputeLoss || last.Amount != -2783 || last.Change != (domain.Balances{Pending: 2784, Disputed: -5567}) || last.Balance != 0 {
		t.Fatalf("statement entry %+v", last)
	}
	// Not released before the earning's time; released then.
	w.clock.Advance(3 * day)
	w.releaseNow(t)
	w.expect(t, "not due yet", domain.Balances{Available: -2784, Pending: 2784})
	w.clock.Advance(1 * day)
	w.releaseNow(t)
	w.expect(t, "released at its time: the order left nothing", domain.Balances{})
}

// The carried_forward step: a wallet older than the journal gets one
// opening entry of its balances, once.
func TestCarryForwardIsIdempotent(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	walletID := domain.WalletIDOf(w.store)
	// A wallet as an older version left it: balances, no journal.
	if _, err := w.db.Collection(storage.WalletsColl).UpdateOne(ctx, bson.M{"_id": walletID},
		bson.M{"$set": bson.M{"availableBalance": money.Fils(12_00), "pendingBalance": money.Fils(3_00)}, "$unset": bson.M{"moveSeq": ""}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := w.carryForward(ctx); err != nil {
			t.Fatal(err)
		}
	}
	es, _ := w.statement.Between(ctx, walletID, 0, 1<<62, 10)
	if len(es) != 1 || es[0].Kind != domain.KindCarried || es[0].Balance != 15_00 {
		t.Fatalf("%+v", es)
	}
	w.adjust(t, ctx, w.store, contract.AdjustAddBalance, 1_00)
	w.statementAgrees(t)
}

// Prepare asks the customers service once about a batch's refunded orders
// and the payments service once about its disputes (outside the
// transaction); the handlers then use the answers; a payments service that
// does not answer makes the batch wait (a transient error), moving nothing.
func TestPrepareConfirmsRefundsAndDisputesOnceForABatch(t *testing.T) {
	w := newMoneyWorld(t)
	a, b := w.order(customers.StatusOutForDelivery), w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, a)
	w.deliverOrder(t, b)
	ref := "ref_" + ids.New("orders")[4:]
	w.mu.Lock()
	f := w.orders[a]
	f.Refunds = []customers.RefundFact{{RefundID: ref, Amount: 3000, Status: customers.RefundStatusSucceeded}}
	w.orders[a] = f
	w.asked = 0
	w.mu.Unlock()
	w.disputes["dp_b"] = payments.Dispute{DisputeID: "dp_b", OrderID: b, Amount: 9000, Currency: "aed", Status: payments.DisputeOpen}
	envs := []events.Envelope{
		envelope(t, customers.EventOrderRefunded, customers.OrderRefunded{RefundID: ref, OrderID: a, Amount: 3000}),
		envelope(t, customers.EventOrderRefunded, customers.OrderRefunded{RefundID: ref, OrderID: a, Amount: 3000}),
		envelope(t, payments.EventDisputeOpened, payments.Dispute{DisputeID: "dp_b", OrderID: b}),
	}
	ctx, err := w.prepare(context.Background(), envs)
	if err != nil {
		t.Fatal(err)
	}
	err = w.db.Tx(ctx, func(ctx context.Context) error {
		for _, env := range envs {
			if err := w.onEvent(ctx, env); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.asked != 1 || w.askedPay != 1 {
		t.Fatalf("customers asked %d times, payments %d; want once each", w.asked, w.askedPay)
	}
	w.expect(t, "a refund and a dispute in one batch", domain.Balances{Pending: 2*8350 - 2783 - 8350, Disputed: 8350})
	w.svc.moneyFacts = func(context.Context, payments.MoneyFactsArgs) (*payments.MoneyFacts, error) {
		return nil, apperr.New(apperr.Unavailable, "payments is unavailable")
	}
	if _, err := w.prepare(context.Background(), []events.Envelope{envelope(t, payments.EventDisputeClosed, payments.Dispute{DisputeID: "dp_b", OrderID: b})}); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("payments down: %v", err)
	}
}

// A refund racing the release of its order's earning, and adjustments
// racing both: whichever commits first, the wallet equals its ledger and
// its statement, and the store share leaves exactly once.
func TestRefundRacingTheRelease(t *testing.T) {
	for run := range 5 {
		w := newMoneyWorld(t)
		o := w.order(customers.StatusOutForDelivery)
		w.deliverOrder(t, o)
		ref := "ref_" + ids.New("orders")[4:]
		w.mu.Lock()
		f := w.orders[o]
		f.Refunds = []customers.RefundFact{{RefundID: ref, Amount: 3000, Status: customers.RefundStatusSucceeded}}
		w.orders[o] = f
		w.mu.Unlock()
		w.clock.Advance(7 * day)
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		wg.Add(3)
		go func() {
			defer wg.Done()
			_, _, err := w.releaseDue(context.Background())
			errs <- err
		}()
		go func() {
			defer wg.Done()
			env := envelope(t, customers.EventOrderRefunded, customers.OrderRefunded{RefundID: ref, OrderID: o, Amount: 3000})
			for { // a missed compare-and-set is a retry, as the consumer does
				err := w.db.Tx(context.Background(), func(ctx context.Context) error { return w.onEvent(ctx, env) })
				if !events.IsRetry(err) {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			_, err := w.adjustWalletBalance(context.Background(), &adjustArgs{StoreID: w.store, WalletID: domain.WalletIDOf(w.store),
				AdjustmentType: contract.AdjustAddBalance, Amount: 1_00, Reason: "race", AdminUserID: "admin-1"})
			errs <- err
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
		}
		w.expect(t, "the race", domain.Balances{Available: 8350 - 2783 + 1_00})
	}
}

// An order paid in another currency (docs/adr/0153): 24.50 USD accepted for
// the AED order of 90.00, credited 83.50. A dispute of 12.25 USD holds the
// store's share of its AED counterpart 45.00 (4175 fils); lost, it leaves
// with the fee; the refund of the other 12.25 USD takes the rest: the
// whole order is reversed (commission 650 fils, store 8350), the wallet
// owes the fee. A dispute in a third currency moves nothing.
func TestMoneyOfAnOrderPaidInAnotherCurrency(t *testing.T) {
	w := newMoneyWorld(t)
	o := w.order(customers.StatusOutForDelivery)
	w.mu.Lock()
	f := w.orders[o]
	f.AmountPaid, f.Currency = 2450, "usd"
	w.orders[o] = f
	w.mu.Unlock()
	w.deliverOrder(t, o)
	w.clock.Advance(7 * day)
	w.releaseNow(t)
	w.expect(t, "credited in AED, released", domain.Balances{Available: 8350})
	usd := func(id string, amount money.Fils, status, currency string) {
		w.dmu.Lock()
		w.disputes[id] = payments.Dispute{DisputeID: id, OrderID: o, StoreID: w.store, Amount: amount, Currency: currency, Status: status}
		w.dmu.Unlock()
		typ := payments.EventDisputeOpened
		if status != payments.DisputeOpen {
			typ = payments.EventDisputeClosed
		}
		w.deliver(t, typ, payments.Dispute{DisputeID: id, OrderID: o, Status: status, Amount: amount})
	}
	usd("dp_eur", 1225, payments.DisputeOpen, "eur")
	w.expect(t, "a dispute in euros", domain.Balances{Available: 8350})
	usd("dp_1", 1225, payments.DisputeOpen, "usd")
	w.expect(t, "held in proportion", domain.Balances{Available: 8350 - 4175, Disputed: 4175})
	usd("dp_1", 1225, payments.DisputeLost, "usd")
	w.expect(t, "lost, the fee charged", domain.Balances{Available: 8350 - 4175 - 1500})
	w.refund(t, o, 1225, customers.RefundStatusSucceeded)
	w.expect(t, "refunded all that is left", domain.Balances{Available: -1500})
	om, _ := w.svc.orders.Get(context.Background(), o)
	if om.Reversed != 9000 || om.ReversedPaid != 2450 || om.CommissionReversed != 650 || om.Currency != "usd" || om.Refunds[0].AED != 4500 {
		t.Fatalf("%+v", om)
	}
	if evs := w.moveEvents(t, contract.EventWalletRefundReversed); len(evs) != 1 || evs[0].Amount != 4175 || evs[0].Commission != 325 {
		t.Fatalf("%+v", evs)
	}
}
