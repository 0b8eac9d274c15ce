package e2e

// The platform proves that nothing went missing
// (docs/adr/0151-platform-reconciliation.md): random money histories through
// the gateway, the services and the processor simulator, and after each step
// admins.finance.reconcilePlatform balanced in fils, every wallet equal to
// its ledger, and each statement's closing balance equal to its wallet.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

const opReconcilePlatform = "admins.finance.reconcilePlatform"

// platformView is reconcilePlatform's answer.
type platformView struct {
	Balanced       bool               `json:"balanced"`
	Difference     float64            `json:"difference"`
	DifferenceFils int64              `json:"differenceFils"`
	Equation       string             `json:"equation"`
	Terms          map[string]float64 `json:"terms"`
	TermsFils      map[string]int64   `json:"termsFils"`
	Orders         int                `json:"orders"`
	Delivered      int                `json:"delivered"`
	AsOf           int64              `json:"asOf"`
}

// left and right recompute the equation from termsFils: the answer's
// difference must be what its own terms make.
func (p platformView) recomputed() int64 {
	f := p.TermsFils
	left := f["captured"] - f["refunded"] - f["disputesLost"] + f["otherCurrencyDelivered"]
	right := f["notDelivered"] + f["paymentDifferences"] - f["excess"] + f["commissionKept"] + f["storeBalances"] + f["openPayouts"] +
		f["paidOut"] + f["payoutFees"] + f["failedKept"] + f["disputeFeesCharged"] - f["adjustmentsNet"]
	return left - right
}

// moneyOrder is what the history knows of one of its orders.
type moneyOrder struct {
	id, intent, store string
	status            string // confirmed, delivered, cancelled
	dispute           string // the open dispute's id
	// dollars: paid in another currency (docs/adr/0153): refunded in full
	// only; its refunds and lost disputes are reversed in AED in
	// proportion to what was paid.
	dollars bool
}

// moneyPayout is one of the history's payouts.
type moneyPayout struct {
	id, store, status string
	want              string // sent through the processor: the status its outcome must give
}

type moneyHistory struct {
	t       *testing.T
	s       *st.Sys
	c       *checkout
	w       *payoutsWorld
	clock   interface{ Advance(time.Duration) }
	now     func() time.Time
	start   time.Time
	rng     *rand.Rand
	orders  []*moneyOrder
	payouts []*moneyPayout
	wallets map[string]string // store → wallet id
	config  string
	log     []string
}

func envInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// TestPlatformBalancesAfterRandomMoneyHistories drives a seeded random
// history (MONEY_SEED replays one, MONEY_STEPS makes it longer): orders paid
// through checkout and the simulator, delivered or cancelled; partial and
// full refunds by an administrator or the store's owner, some of them two at
// once that together exceed what is left; disputes opened at the simulator
// and closed won or lost, the fee charged to the store or borne by the
// platform; releases on the services' clock; payouts requested, sent
// through the processor and paid or failed, or moved by hand; adjustments.
// After each step, once every event is consumed, the platform balances.
func TestPlatformBalancesAfterRandomMoneyHistories(t *testing.T) {
	seed := envInt(t, "MONEY_SEED", time.Now().UnixNano())
	steps := int(envInt(t, "MONEY_STEPS", 40))
	t.Logf("MONEY_SEED=%d MONEY_STEPS=%d", seed, steps)
	h := newMoneyHistory(t, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with MONEY_SEED=%d MONEY_STEPS=%d; the steps: %v", seed, steps, h.log)
		}
	})
	h.settle("the start")
	type step struct {
		name   string
		weight int
		run    func() string
	}
	all := []step{
		{"pay", 6, h.pay}, {"pay in dollars", 2, h.payInDollars}, {"deliver", 5, h.deliver}, {"cancel", 1, h.cancel}, {"refund", 4, h.refund},
		{"concurrent refunds", 2, h.concurrentRefunds}, {"open a dispute", 2, h.openDispute}, {"close a dispute", 2, h.closeDispute},
		{"release", 2, h.release}, {"request a payout", 4, h.requestPayout}, {"send a payout through the processor", 3, h.sendPayout},
		{"move a payout by hand", 3, h.movePayout}, {"adjust a wallet", 2, h.adjust}, {"switch who bears dispute fees", 1, h.switchFees},
	}
	total := 0
	for _, s := range all {
		total += s.weight
	}
	for i := range steps {
		n := h.rng.IntN(total)
		var chosen step
		for _, s := range all {
			if n < s.weight {
				chosen = s
				break
			}
			n -= s.weight
		}
		did := chosen.run()
		h.log = append(h.log, fmt.Sprintf("%d %s: %s", i, chosen.name, did))
		t.Logf("step %d, %s: %s", i, chosen.name, did)
		h.settle(fmt.Sprintf("step %d (%s: %s)", i, chosen.name, did))
	}
	p := h.settle("the end")
	if p.Orders == 0 {
		t.Fatalf("a history without orders: %+v", p)
	}
	t.Logf("%d orders (%d delivered), %d payouts; terms %v", p.Orders, p.Delivered, len(h.payouts), p.TermsFils)
}

// newMoneyHistory starts a system on a clock of its own with checkout's
// world (stores A and B, payouts from 10 AED) and a history of seed.
func newMoneyHistory(t *testing.T, seed int64) *moneyHistory {
	t.Helper()
	clock := newTestClock(time.Now())
	s := st.Start(t, st.WithClock(clock.Now))
	if s.ProcessorURL == "" {
		t.Fatal("the all-in-one runs no processor simulator")
	}
	h := &moneyHistory{t: t, s: s, clock: clock, now: clock.Now, start: clock.Now(), rng: rand.New(rand.NewPCG(uint64(seed), 31)), wallets: map[string]string{}}
	h.c = newCheckout(t, s)
	h.w = &payoutsWorld{s: s, admin: h.c.admin, owner: h.c.owner, store: h.c.storeA}
	h.config = mustActive(t, s, h.c.admin).ID
	// Payouts from 10 AED, so that a few orders make one.
	st.MustOK(t, s.Mutation(h.c.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": h.config,
		"walletSettings": map[string]any{"minPayoutAmount": 10}}))
	for _, store := range []string{h.c.storeA, h.c.storeB} {
		h.wallets[store] = h.w.getWallet(t, h.c.owner, store).ID
	}
	return h
}

// settle waits until every event is consumed and the platform balances
// (within a deadline: then it fails with the terms), and checks each
// wallet against its ledger and its statement.
func (h *moneyHistory) settle(after string) platformView {
	t := h.t
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	reconcile := func() platformView {
		p := okAs[platformView](t, h.s.Query(h.c.admin, opReconcilePlatform, map[string]any{"adminUserId": "admin-1"}))
		if p.DifferenceFils != p.recomputed() || inFils(p.Difference) != p.DifferenceFils {
			t.Fatalf("after %s: the answer's difference %d fils (%.2f AED) is not what its terms make (%d): %v", after, p.DifferenceFils, p.Difference, p.recomputed(), p.TermsFils)
		}
		return p
	}
	var p platformView
	for {
		// Nothing in flight first (a refund the processor has not answered,
		// a transfer), then balanced, twice with the same terms: a balance
		// read before an event is consumed does not count.
		if h.quiet() {
			if p = reconcile(); p.Balanced && p.DifferenceFils == 0 {
				time.Sleep(150 * time.Millisecond)
				if again := reconcile(); again.Balanced && maps.Equal(again.TermsFils, p.TermsFils) {
					break
				}
			}
		}
		if time.Now().After(deadline) {
			p = reconcile()
			t.Fatalf("after %s: the platform does not balance within 20 s: difference %d fils; terms %v", after, p.DifferenceFils, p.TermsFils)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for store, wallet := range h.wallets {
		h.w.reconciled(t, store)
		sum := func() int64 {
			w := okAs[struct {
				Available float64 `json:"availableBalance"`
				Pending   float64 `json:"pendingBalance"`
				Disputed  float64 `json:"disputedBalance"`
			}](t, h.s.Query(h.c.owner, opGetWallet, map[string]any{"storeId": store}))
			return inFils(w.Available) + inFils(w.Pending) + inFils(w.Disputed)
		}
		// The statement read between two equal reads of the wallet (the
		// release loop may move money meanwhile) closes at the wallet.
		for {
			before := sum()
			to := h.now().Add(time.Hour).UnixMilli()
			from := max(h.start.Add(-time.Hour).UnixMilli(), to-365*24*3600*1000)
			sv := okAs[statementView](t, h.s.Query(h.c.owner, "stores.wallet.getStatement", map[string]any{"storeId": store, "from": from, "to": to}))
			if now := sum(); now != before {
				continue
			}
			if inFils(sv.ClosingBalance) != before {
				t.Fatalf("after %s: wallet %s's statement closes at %.2f, the wallet holds %.2f; entries %+v", after, wallet, sv.ClosingBalance, float64(before)/100, sv.Entries)
			}
			break
		}
	}
	return p
}

// quiet: no refund waits for the processor and no payout for its transfer
// (the simulator's webhooks are asynchronous; reconcilePlatform may balance
// before they arrive, and the next step must see their outcome).
func (h *moneyHistory) quiet() bool {
	for _, o := range h.orders {
		for _, r := range moneyOf(h.t, h.s, h.c.admin, o.intent).Refunds {
			if r.Status == "requested" {
				return false
			}
		}
	}
	for _, p := range h.payouts {
		if p.status == "sent" {
			v := h.w.payout(h.t, p.id)
			if v.Status == "processing" {
				return false
			}
			if v.Status != p.want {
				h.t.Fatalf("payout %s sent through the processor to be %s is %s: %+v", p.id, p.want, v.Status, v)
			}
			p.status = v.Status
		}
	}
	return true
}

func (h *moneyHistory) pick(match func(o *moneyOrder) bool) *moneyOrder {
	var c []*moneyOrder
	for _, o := range h.orders {
		if match(o) {
			c = append(c, o)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[h.rng.IntN(len(c))]
}

func (h *moneyHistory) pickPayout(status string) *moneyPayout {
	var c []*moneyPayout
	for _, p := range h.payouts {
		if p.status == status {
			c = append(c, p)
		}
	}
	if len(c) == 0 {
		return nil
	}
	return c[h.rng.IntN(len(c))]
}

// pay fills the cart with some of a store's products and pays them through
// checkout and the simulator.
func (h *moneyHistory) pay() string {
	t, c := h.t, h.c
	store, items := c.storeA, map[string]int{c.productA1: 1 + h.rng.IntN(3), c.productA2: 1 + h.rng.IntN(2)}
	if h.rng.IntN(3) == 0 {
		store, items = c.storeB, map[string]int{c.productB: 1 + h.rng.IntN(2)}
	}
	for p, q := range items {
		if q > 0 {
			okID(t, h.s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": p, "quantity": q}))
		}
	}
	in := okAs[intentView](t, h.s.Mutation(c.user, opCreateIntent, c.args(store, "standard")))
	overpaid := store == c.storeA && h.rng.IntN(4) == 0
	if overpaid {
		// The cake leaves the cart after the intent: the payment exceeds the
		// order's total, which the platform holds for an administrator
		// (a payment difference; a full refund's excess is no one's share).
		for _, l := range myCart(t, h.s, c.user, c.storeA).Items {
			if l.ProductID == c.productA2 {
				st.MustOK(t, h.s.Mutation(c.user, "customers.cart.removeItem", map[string]any{"itemId": l.ID}))
			}
		}
	}
	if r := confirm(t, h.s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the order of "+in.PaymentIntentID, func() bool { return orderOf(t, h.s, c.user, in.PaymentIntentID) != nil })
	o := orderOf(t, h.s, c.user, in.PaymentIntentID)
	held := ""
	if o.PaymentStatus == "under_review" {
		if !overpaid {
			t.Fatalf("order %s held: %+v", o.ID, o)
		}
		st.MustOK(t, h.s.Mutation(c.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.ID, "status": "confirmed"}))
		held = fmt.Sprintf(" for a total of %.2f, accepted by an administrator", o.Total)
	}
	h.orders = append(h.orders, &moneyOrder{id: o.ID, intent: in.PaymentIntentID, store: store, status: "confirmed"})
	return fmt.Sprintf("%s %.2f AED%s", o.ID, in.Amount, held)
}

func (h *moneyHistory) deliver() string {
	o := h.pick(func(o *moneyOrder) bool { return o.status == "confirmed" })
	if o == nil {
		return "none to deliver"
	}
	moveOrder(h.t, h.s, h.c.owner, o.id)
	o.status = "delivered"
	return o.id
}

func (h *moneyHistory) cancel() string {
	o := h.pick(func(o *moneyOrder) bool { return o.status == "confirmed" })
	if o == nil {
		return "none to cancel"
	}
	by := h.c.owner
	if h.rng.IntN(2) == 0 {
		by = h.c.admin
	}
	st.MustOK(h.t, h.s.Mutation(by, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.id, "status": "cancelled"}))
	o.status = "cancelled"
	return o.id
}

// payInDollars: a payment of store A's cart in dollars, an intent made at
// the simulator (as a client of the processor could) with checkout's
// metadata and confirmed there: the order is held (currency_mismatch) and
// an administrator accepts it; delivered, its store is credited in AED
// (otherCurrencyDelivered). Its refunds and disputes go through the
// simulator like any other's and are reversed in AED in proportion.
func (h *moneyHistory) payInDollars() string {
	t, c := h.t, h.c
	okID(t, h.s.Mutation(c.user, "customers.cart.addItem", map[string]any{"productId": c.productA1, "quantity": 1 + h.rng.IntN(2)}))
	p := c.payment("")
	p.Currency, p.AmountFils = "usd", 2500+h.rng.Int64N(5000)
	addr, _ := json.Marshal(p.Address)
	form := url.Values{"amount": {strconv.FormatInt(p.AmountFils, 10)}, "currency": {p.Currency},
		"metadata[customerId]": {p.CustomerID}, "metadata[storeId]": {p.StoreID}, "metadata[deliveryAddress]": {string(addr)},
		"metadata[deliveryType]": {p.DeliveryType}, "metadata[deliveryFee]": {p.DeliveryFee}}
	var in struct {
		ID           string `json:"id"`
		ClientSecret string `json:"client_secret"`
	}
	st.MustOK(t, h.s.DoAt(h.s.ProcessorURL, "POST", "/v1/payment_intents", strings.NewReader(form.Encode()),
		map[string]string{"Authorization": "Bearer " + h.s.ProcessorKey, "Content-Type": "application/x-www-form-urlencoded"})).Decode(t, &in)
	intent := in.ID
	if r := confirm(t, h.s, intentView{PaymentIntentID: intent, ClientSecret: in.ClientSecret, PublishableKey: st.PublishableKey}, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm a payment in dollars: %d %s", r.Status, r.Body)
	}
	eventually(t, "the order of "+intent, func() bool { return orderOf(t, h.s, c.admin, intent) != nil })
	o := orderOf(t, h.s, c.admin, intent)
	if o.PaymentStatus != "under_review" {
		t.Fatalf("a payment in dollars: %+v", o)
	}
	st.MustOK(t, h.s.Mutation(c.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.ID, "status": "confirmed"}))
	h.orders = append(h.orders, &moneyOrder{id: o.ID, intent: intent, store: c.storeA, status: "confirmed", dollars: true})
	return fmt.Sprintf("%s %.2f USD for %.2f AED", o.ID, float64(p.AmountFils)/100, o.Total)
}

// refundable is what is left to refund of the order, in fils.
func (h *moneyHistory) refundable(o *moneyOrder) int64 {
	m := moneyOf(h.t, h.s, h.c.admin, o.intent)
	if m.RefundableAmount == nil {
		return 0
	}
	return inFils(*m.RefundableAmount)
}

// refundResult accepts a refund reserved, or refused for a reason the rules
// give (what is left, the store's window, an open dispute, contention).
func (h *moneyHistory) refundResult(r st.Result) string {
	switch {
	case r.Status == 200:
		return "reserved"
	case r.Code() == "FAILED_PRECONDITION" || r.Code() == "UNAVAILABLE" || r.Code() == "ABORTED":
		return "refused " + errorReason(h.t, r)
	}
	h.t.Fatalf("refund: %d %s", r.Status, r.Body)
	return ""
}

func (h *moneyHistory) refund() string {
	o := h.pick(func(o *moneyOrder) bool { return o.status != "cancelled" && o.dispute == "" })
	if o == nil {
		return "none to refund"
	}
	left := h.refundable(o)
	if left == 0 {
		return o.id + " has nothing left"
	}
	by, op := h.c.admin, "admins.orders.refundOrder"
	if h.rng.IntN(2) == 0 {
		by, op = h.c.owner, "stores.orders.refundOrder"
	}
	args := map[string]any{"orderId": o.id, "reason": "property test"}
	amount := "all"
	if h.rng.IntN(3) != 0 && left > 1 && !o.dollars { // an order paid in another currency is refunded in full only
		f := 1 + h.rng.Int64N(left)
		args["amount"], amount = float64(f)/100, fmt.Sprintf("%.2f", float64(f)/100)
	}
	return fmt.Sprintf("%s %s of %.2f: %s", op, amount, float64(left)/100, h.refundResult(h.s.Mutation(by, op, args)))
}

// concurrentRefunds asks two refunds at once that together exceed what is
// left: never both reserved.
func (h *moneyHistory) concurrentRefunds() string {
	o := h.pick(func(o *moneyOrder) bool { return o.status != "cancelled" && o.dispute == "" && !o.dollars })
	if o == nil {
		return "none to refund"
	}
	left := h.refundable(o)
	if left < 2 {
		return o.id + " has too little left"
	}
	each := left/2 + 1
	var wg sync.WaitGroup
	rs := make([]st.Result, 2)
	for i := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			by, op := h.c.admin, "admins.orders.refundOrder"
			if i == 1 {
				by, op = h.c.owner, "stores.orders.refundOrder"
			}
			rs[i] = h.s.Mutation(by, op, map[string]any{"orderId": o.id, "reason": "at once", "amount": float64(each) / 100})
		}()
	}
	wg.Wait()
	a, b := h.refundResult(rs[0]), h.refundResult(rs[1])
	if a == "reserved" && b == "reserved" {
		h.t.Fatalf("two refunds of %d fils each reserved on %d fils left", each, left)
	}
	return fmt.Sprintf("2 × %.2f of %.2f: %s, %s", float64(each)/100, float64(left)/100, a, b)
}

func (h *moneyHistory) openDispute() string {
	o := h.pick(func(o *moneyOrder) bool { return o.dispute == "" })
	if o == nil {
		return "none to dispute"
	}
	form := url.Values{"reason": {"product_not_received"}}
	rec := simulatorRecord(h.t, h.s, o.intent)
	left := rec.Intent.AmountReceived
	for _, r := range rec.Refunds {
		if r.Status != "failed" {
			left -= r.Amount
		}
	}
	for _, d := range rec.Disputes {
		if d.Status == "lost" {
			left -= d.Amount
		}
	}
	if left <= 0 {
		return o.id + " has nothing left to dispute"
	}
	if h.rng.IntN(2) == 0 {
		form.Set("amount", strconv.FormatInt(1+h.rng.Int64N(left), 10))
	}
	r := atSimulator(h.t, h.s, "/simulator/payment_intents/"+o.intent+"/disputes", form)
	if r.Status != 200 {
		h.t.Fatalf("open a dispute on %s (%d left): %d %s", o.intent, left, r.Status, r.Body)
	}
	var d struct {
		ID     string `json:"id"`
		Amount int64  `json:"amount"`
	}
	r.Decode(h.t, &d)
	o.dispute = d.ID
	eventually(h.t, "the dispute recorded", func() bool {
		for _, v := range disputesOf(h.t, h.s, h.c.admin, "admins.disputes.listDisputes", map[string]any{"status": "open"}) {
			if v.DisputeID == d.ID {
				return true
			}
		}
		return false
	})
	return fmt.Sprintf("%s of %s: %.2f", d.ID, o.id, float64(d.Amount)/100)
}

func (h *moneyHistory) closeDispute() string {
	o := h.pick(func(o *moneyOrder) bool { return o.dispute != "" })
	if o == nil {
		return "none open"
	}
	outcome := "won"
	if h.rng.IntN(2) == 0 {
		outcome = "lost"
	}
	st.MustOK(h.t, atSimulator(h.t, h.s, "/simulator/disputes/"+o.dispute+"/close", url.Values{"outcome": {outcome}}))
	id := o.dispute
	o.dispute = ""
	eventually(h.t, "the dispute closed", func() bool {
		for _, v := range disputesOf(h.t, h.s, h.c.admin, "admins.disputes.listDisputes", map[string]any{"status": outcome}) {
			if v.DisputeID == id {
				return true
			}
		}
		return false
	})
	return id + " " + outcome
}

func (h *moneyHistory) release() string {
	h.clock.Advance(time.Duration(1+h.rng.IntN(8)) * 24 * time.Hour)
	r := okAs[struct {
		Released int     `json:"released"`
		Amount   float64 `json:"amount"`
	}](h.t, h.s.Mutation(h.c.admin, opReleaseEarnings, map[string]any{"adminUserId": "admin-1"}))
	return fmt.Sprintf("%d earnings, %.2f AED", r.Released, r.Amount)
}

func (h *moneyHistory) store() string {
	if h.rng.IntN(3) == 0 {
		return h.c.storeB
	}
	return h.c.storeA
}

func (h *moneyHistory) requestPayout() string {
	store := h.store()
	w := h.w.getWallet(h.t, h.c.owner, store)
	avail := inFils(w.AvailableBalance)
	topUp := ""
	if avail < 1000 && h.rng.IntN(2) == 0 {
		// An administrator's bonus makes it payable (a debt repaid first).
		bonus := 1000 - avail + h.rng.Int64N(20_000)
		st.MustOK(h.t, h.w.adjust(store, h.wallets[store], "add_balance", float64(bonus)/100))
		avail += bonus
		topUp = fmt.Sprintf(" after a bonus of %.2f", float64(bonus)/100)
	}
	if avail < 1000 {
		return fmt.Sprintf("%s has %.2f available", store, w.AvailableBalance)
	}
	amount := 1000 + h.rng.Int64N(min(avail, 100_000)-1000+1)
	r := h.w.request(h.c.owner, store, float64(amount)/100)
	if r.Status != 200 {
		h.t.Fatalf("request %.2f of %.2f available: %d %s", float64(amount)/100, w.AvailableBalance, r.Status, r.Body)
	}
	id := okID(h.t, r)
	h.payouts = append(h.payouts, &moneyPayout{id: id, store: store, status: "requested"})
	return fmt.Sprintf("%s %.2f of %s%s", id, float64(amount)/100, store, topUp)
}

func (h *moneyHistory) sendPayout() string {
	p := h.pickPayout("requested")
	if p == nil {
		return "none requested"
	}
	st.MustOK(h.t, h.w.move(opApprove, p.id))
	outcome := "paid"
	p.want = "completed"
	if h.rng.IntN(2) == 0 {
		outcome, p.want = "failed", "failed"
		simulatorControl(h.t, h.s, url.Values{"type": {"payout.*"}, "action": {"fail"}, "failureCode": {"account_closed"}})
	}
	st.MustOK(h.t, h.w.move(opSendThroughProcessor, p.id))
	p.status = "sent"
	return p.id + " " + outcome
}

func (h *moneyHistory) movePayout() string {
	p := h.pickPayout("requested")
	if p == nil {
		return "none requested"
	}
	w := h.w
	switch h.rng.IntN(4) {
	case 0:
		st.MustOK(h.t, w.move(opReject, p.id, "rejectionReason", "r"))
		p.status = "cancelled"
	case 1:
		w.pay(h.t, p.id)
		p.status = "completed"
	default:
		st.MustOK(h.t, w.move(opApprove, p.id))
		if h.rng.IntN(2) == 0 {
			st.MustOK(h.t, w.move(opProcessing, p.id, "processingMethod", "manual"))
		}
		restore := h.rng.IntN(2) == 0
		st.MustOK(h.t, w.move(opFail, p.id, "failureReason", "f", "restoreBalance", restore))
		p.status = "failed"
		return fmt.Sprintf("%s failed (restored: %t)", p.id, restore)
	}
	return p.id + " " + p.status
}

func (h *moneyHistory) adjust() string {
	store := h.store()
	kinds := []string{"add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available"}
	kind := kinds[h.rng.IntN(len(kinds))]
	amount := float64(1+h.rng.IntN(5000)) / 100
	r := h.w.adjust(store, h.wallets[store], kind, amount)
	switch {
	case r.Status == 200:
		return fmt.Sprintf("%s %.2f of %s", kind, amount, store)
	case r.Code() == "FAILED_PRECONDITION":
		return fmt.Sprintf("%s %.2f of %s refused", kind, amount, store)
	}
	h.t.Fatalf("adjust %s %.2f: %d %s", kind, amount, r.Status, r.Body)
	return ""
}

func (h *moneyHistory) switchFees() string {
	to := []string{"store", "platform"}[h.rng.IntN(2)]
	st.MustOK(h.t, h.s.Mutation(h.c.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": h.config,
		"walletSettings": map[string]any{"disputeFeeChargedTo": to}}))
	return "to the " + to
}

// TestPlatformBalancesWithAnOrderPaidInAnotherCurrency: an order paid in
// dollars, accepted, delivered and released (its store credited in AED),
// then disputed for half its payment and lost (the fee charged to the
// store), then refunded all that is left (docs/adr/0153): both are
// reversed in AED in proportion to what was paid, so the whole order is
// reversed, the store owes only the fee, the platform keeps no commission
// of it, and the platform balances after each step with
// otherCurrencyDelivered net of them (0 at the end).
func TestPlatformBalancesWithAnOrderPaidInAnotherCurrency(t *testing.T) {
	h := newMoneyHistory(t, 7)
	wallet := func() moneyWallet {
		return okAs[moneyWallet](t, h.s.Query(h.c.owner, opGetWallet, map[string]any{"storeId": h.c.storeA}))
	}
	h.settle("the start")
	did := h.payInDollars()
	o := h.orders[0]
	h.settle(did)
	h.deliver()
	h.settle("delivered")
	h.clock.Advance(8 * 24 * time.Hour)
	st.MustOK(t, h.s.Mutation(h.c.admin, opReleaseEarnings, map[string]any{"adminUserId": "admin-1"}))
	p := h.settle("released")
	credited := p.TermsFils["storeBalances"]
	if credited <= 0 || p.TermsFils["otherCurrencyDelivered"] != credited+p.TermsFils["commissionKept"] {
		t.Fatalf("credited: %v", p.TermsFils)
	}
	paid := simulatorRecord(t, h.s, o.intent).Intent.AmountReceived
	r := atSimulator(t, h.s, "/simulator/payment_intents/"+o.intent+"/disputes", url.Values{"reason": {"fraudulent"}, "amount": {strconv.FormatInt(paid/2, 10)}})
	if r.Status != 200 {
		t.Fatalf("dispute: %d %s", r.Status, r.Body)
	}
	var d struct {
		ID string `json:"id"`
	}
	r.Decode(t, &d)
	eventually(t, "the share held", func() bool { return wallet().DisputedBalance > 0 })
	p = h.settle("disputed")
	st.MustOK(t, atSimulator(t, h.s, "/simulator/disputes/"+d.ID+"/close", url.Values{"outcome": {"lost"}}))
	eventually(t, "the share debited", func() bool { return wallet().DisputedBalance == 0 })
	p = h.settle("the dispute lost")
	if left := p.TermsFils["otherCurrencyDelivered"]; left <= 0 || left >= credited+p.TermsFils["commissionKept"] {
		t.Fatalf("after the loss of half: %v", p.TermsFils)
	}
	st.MustOK(t, h.s.Mutation(h.c.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.id, "reason": "the rest"}))
	eventually(t, "the refund reversed", func() bool {
		w := wallet()
		return inFils(w.AvailableBalance)+inFils(w.PendingBalance)+inFils(w.DisputedBalance) == -15_00
	})
	p = h.settle("refunded the rest")
	if p.TermsFils["otherCurrencyDelivered"] != 0 || p.TermsFils["commissionKept"] != 0 || p.TermsFils["storeBalances"] != -15_00 ||
		p.TermsFils["disputeFeesCharged"] != 15_00 {
		t.Fatalf("the whole order reversed: %v", p.TermsFils)
	}
}
