package e2e

import (
	"net/url"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// moneyWallet is a wallet's balances, debt and disputed balance included.
type moneyWallet struct {
	ID               string  `json:"_id"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	DisputedBalance  float64 `json:"disputedBalance"`
	Debt             float64 `json:"debt"`
}

// moneyWorld is a store's orders paid through the processor simulator, on a
// clock the test moves (earnings held 7 days).
type moneyWorld struct {
	s     *st.Sys
	c     *checkout
	w     *payoutsWorld
	clock interface{ Advance(time.Duration) }
}

func newMoneyWorld(t *testing.T) (*moneyWorld, string) {
	t.Helper()
	clock := newTestClock(time.Now())
	s := st.Start(t, st.WithClock(clock.Now))
	c, intent := paidThroughProcessor(t, s)
	w := &payoutsWorld{s: s, admin: c.admin, owner: c.owner, store: c.storeA}
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	return &moneyWorld{s: s, c: c, w: w, clock: clock}, intent
}

func (m *moneyWorld) wallet(t *testing.T) moneyWallet {
	t.Helper()
	return okAs[moneyWallet](t, m.s.Query(m.w.owner, opGetWallet, map[string]any{"storeId": m.w.store}))
}

// until waits for the wallet to satisfy cond.
func (m *moneyWorld) until(t *testing.T, what string, cond func(moneyWallet) bool) moneyWallet {
	t.Helper()
	var got moneyWallet
	eventually(t, what, func() bool { got = m.wallet(t); return cond(got) })
	return got
}

// deliverAndRelease delivers the order of intent and releases its earning.
func (m *moneyWorld) deliverAndRelease(t *testing.T, intent string) {
	t.Helper()
	before := m.wallet(t)
	moveOrder(t, m.s, m.w.owner, moneyOf(t, m.s, m.w.admin, intent).ID)
	m.until(t, "the earning credited", func(w moneyWallet) bool { return w.PendingBalance > before.PendingBalance })
	m.clock.Advance(7*24*time.Hour + time.Minute)
	st.MustOK(t, m.s.Mutation(m.w.admin, opReleaseEarnings, map[string]any{"adminUserId": "admin-1"}))
}

// pay makes another order of store A's lines (87.05 AED) paid through the
// processor and returns its intent.
func (m *moneyWorld) pay(t *testing.T) string {
	t.Helper()
	m.c.fillCart(t)
	in := okAs[intentView](t, m.s.Mutation(m.c.user, opCreateIntent, m.c.args(m.c.storeA, "standard")))
	if r := confirm(t, m.s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the order", func() bool { return orderOf(t, m.s, m.c.user, in.PaymentIntentID) != nil })
	return in.PaymentIntentID
}

// checked: the wallet equals its ledger and its statement's closing balance.
func (m *moneyWorld) checked(t *testing.T, want moneyWallet) {
	t.Helper()
	m.w.reconciled(t, m.w.store)
	var stmt struct {
		ClosingBalance float64 `json:"closingBalance"`
	}
	st.MustOK(t, m.s.Query(m.w.owner, "stores.wallet.getStatement", map[string]any{"storeId": m.w.store, "from": time.Now().Add(-300 * 24 * time.Hour).UnixMilli(),
		"to": time.Now().Add(30 * 24 * time.Hour).UnixMilli()})).Decode(t, &stmt)
	if inFils(stmt.ClosingBalance) != inFils(want.AvailableBalance+want.PendingBalance+want.DisputedBalance) {
		t.Fatalf("the statement closes at %.2f; the wallet holds %+v", stmt.ClosingBalance, want)
	}
}

// TestRefundAfterReleaseMakesTheWalletNegative: an order's earning (80.70 AED
// of 87.05) released, then most of it taken by a penalty; the order refunded
// in full through the processor takes the store's whole share from available:
// -70.00 AED, a debt; a payout is refused while in debt; the next order's
// earning, released, repays the debt first.
func TestRefundAfterReleaseMakesTheWalletNegative(t *testing.T) {
	m, intent := newMoneyWorld(t)
	m.deliverAndRelease(t, intent)
	m.until(t, "the earning released", func(w moneyWallet) bool { return inFils(w.AvailableBalance) == 80_70 })
	st.MustOK(t, m.w.adjust(m.w.store, m.w.wallet, "deduct_balance", 70.7))
	o := moneyOf(t, m.s, m.w.admin, intent)
	st.MustOK(t, m.s.Mutation(m.w.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "never arrived"}))
	got := m.until(t, "the refund reversed", func(w moneyWallet) bool { return w.AvailableBalance < 0 })
	if inFils(got.AvailableBalance) != -70_70 || inFils(got.Debt) != 70_70 || got.PendingBalance != 0 {
		t.Fatalf("after the refund %+v; want -70.70 available, a debt of 70.70", got)
	}
	m.checked(t, got)
	r := m.w.request(m.w.owner, m.w.store, 100)
	expectError(t, r, "FAILED_PRECONDITION", "in debt", "70.70")
	if d := r.Map(t)["error"].(map[string]any)["details"].(map[string]any); d["reason"] != "wallet_in_debt" || d["debt"] != 70.7 {
		t.Fatalf("details %v", d)
	}

	second := m.pay(t)
	m.deliverAndRelease(t, second)
	got = m.until(t, "the next earning released", func(w moneyWallet) bool { return w.AvailableBalance >= 0 })
	if inFils(got.AvailableBalance) != 10_00 || got.Debt != 0 || got.PendingBalance != 0 {
		t.Fatalf("after the next release %+v; want 80.70 - 70.70 = 10.00 available", got)
	}
	m.checked(t, got)
}

// TestDisputesMoveTheWallet: a dispute of a released order holds the store's
// share (80.70 AED of 87.05) in the disputed balance; won, it comes back to
// available; a second order's dispute, lost, takes the share and the dispute
// fee (15.00 AED, charged to the store by default).
func TestDisputesMoveTheWallet(t *testing.T) {
	m, intent := newMoneyWorld(t)
	m.deliverAndRelease(t, intent)
	m.until(t, "the earning released", func(w moneyWallet) bool { return inFils(w.AvailableBalance) == 80_70 })
	dispute := func(intent string) string {
		var d struct {
			ID string `json:"id"`
		}
		st.MustOK(t, atSimulator(t, m.s, "/simulator/payment_intents/"+intent+"/disputes", url.Values{"reason": {"fraudulent"}})).Decode(t, &d)
		return d.ID
	}
	won := dispute(intent)
	got := m.until(t, "the share held", func(w moneyWallet) bool { return w.DisputedBalance > 0 })
	if inFils(got.DisputedBalance) != 80_70 || got.AvailableBalance != 0 {
		t.Fatalf("dispute opened: %+v", got)
	}
	m.checked(t, got)
	expectError(t, m.s.Mutation(m.w.admin, "admins.orders.refundOrder", map[string]any{"orderId": moneyOf(t, m.s, m.w.admin, intent).ID, "reason": "x"}),
		"FAILED_PRECONDITION", "disputed")
	st.MustOK(t, atSimulator(t, m.s, "/simulator/disputes/"+won+"/close", url.Values{"outcome": {"won"}}))
	got = m.until(t, "the share released", func(w moneyWallet) bool { return w.DisputedBalance == 0 })
	if inFils(got.AvailableBalance) != 80_70 {
		t.Fatalf("dispute won: %+v", got)
	}
	m.checked(t, got)

	second := m.pay(t)
	m.deliverAndRelease(t, second)
	m.until(t, "the second earning released", func(w moneyWallet) bool { return inFils(w.AvailableBalance) == 161_40 })
	lost := dispute(second)
	m.until(t, "the second share held", func(w moneyWallet) bool { return w.DisputedBalance > 0 })
	st.MustOK(t, atSimulator(t, m.s, "/simulator/disputes/"+lost+"/close", url.Values{"outcome": {"lost"}}))
	got = m.until(t, "the share debited", func(w moneyWallet) bool { return w.DisputedBalance == 0 && inFils(w.AvailableBalance) < 80_70 })
	if inFils(got.AvailableBalance) != 80_70-15_00 {
		t.Fatalf("dispute lost: %+v; want 80.70 less the 15.00 fee", got)
	}
	m.checked(t, got)
}
