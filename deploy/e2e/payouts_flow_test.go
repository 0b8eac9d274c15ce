package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// findEvent reads topic for the event keyed key that match accepts, and
// returns its raw message value.
func findEvent(t *testing.T, brokers events.Brokers, topic, key string, match func(events.Envelope) bool) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := brokers.Dialer("e2e").DialContext(ctx, "tcp", brokers.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers.Addrs, Dialer: brokers.Dialer("e2e"), Topic: topic, Partition: p.ID, MaxWait: 50 * time.Millisecond})
		for {
			pctx, pcancel := context.WithTimeout(ctx, time.Second)
			m, err := r.ReadMessage(pctx)
			pcancel()
			if err != nil {
				break
			}
			if string(m.Key) != key {
				continue
			}
			if env, err := events.Decode(m.Value); err == nil && match(env) {
				r.Close()
				return m.Value
			}
		}
		r.Close()
	}
	t.Fatalf("no matching event keyed %s on %s", key, topic)
	return nil
}

// publish puts an event on a topic as its producer would (same key, same
// partition: kafka-go's hash balancer), with the credentials of the service
// that publishes the topic: the only broker user allowed to write it
// (TestKafkaUsersHoldEachServiceToItsTopics). A test that forges an event
// with them shows what a consumer does with facts from a user that may write
// the topic: a leaked or misused producer's credentials, or a bug of the
// producer; it still trusts no content it cannot confirm.
func publish(t *testing.T, s *st.Sys, topic, key string, value []byte) {
	t.Helper()
	pub := events.NewKafkaPublisher(s.KafkaPublisherOf(topic), nil)
	defer pub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := pub.Publish(ctx, events.Message{Topic: topic, Key: []byte(key), Value: value}); err != nil {
		t.Fatal(err)
	}
}

// moveOrder takes an order from confirmed to delivered as its store's owner.
func moveOrder(t *testing.T, s *st.Sys, owner, orderID string) {
	t.Helper()
	for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
		st.MustOK(t, s.Mutation(owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": orderID, "status": status}))
	}
}

// TestEarningsFromDeliveredOrders: a delivered order credits its store's
// pending balance with the order total less the commission frozen on it,
// held pendingBalanceHoldDays (from the configuration in force) on the
// services' clock, then released to available once; a redelivered
// order.status_changed, under its own id or a fresh one, credits nothing more.
func TestEarningsFromDeliveredOrders(t *testing.T) {
	clock := newTestClock(time.Now())
	s := st.Start(t, st.WithClock(clock.Now))
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	w.wallet = w.getWallet(t, w.owner, w.store).ID

	if r := deliver(s, processor.Event("evt_earn_1", "payment_intent.succeeded", sh.payment("pi_earn_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	var order orderView
	st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_earn_1"})).Decode(t, &order)
	if order.StoreEarnings == nil || *order.StoreEarnings != 80.7 { // 87.05 less 5% (4.35) and 2 AED
		t.Fatalf("order terms %+v", order)
	}
	credited := clock.Now()
	moveOrder(t, s, sh.owner, order.ID)
	var wallet walletView
	eventually(t, "the delivered order's earnings", func() bool {
		wallet = w.getWallet(t, w.owner, w.store)
		return wallet.TotalOrders == 1
	})
	expectBalances(t, wallet, 0, 80.7)
	if wallet.TotalEarnings != 80.7 {
		t.Fatalf("wallet %+v", wallet)
	}
	earnings := txOf(w.transactions(t, w.admin, w.store), "earning")
	hold := 7 * 24 * time.Hour // the configuration's default
	if len(earnings) != 1 || earnings[0].Amount != 80.7 || earnings[0].Status != "pending" || earnings[0].ReleaseDate == nil ||
		*earnings[0].ReleaseDate != credited.Add(hold).UnixMilli() || earnings[0].Metadata["orderId"] != order.ID {
		t.Fatalf("earning %+v (credited at %d)", earnings, credited.UnixMilli())
	}
	w.reconciled(t, w.store)
	// Held earnings cannot be paid out.
	expectError(t, w.request(w.owner, w.store, 100), "FAILED_PRECONDITION", "insufficient available balance", "0.00 AED available")

	release := func() float64 {
		t.Helper()
		var r struct {
			Released int     `json:"released"`
			Amount   float64 `json:"amount"`
		}
		st.MustOK(t, s.Mutation(sh.admin, opReleaseEarnings, map[string]any{"adminUserId": "admin-1"})).Decode(t, &r)
		return r.Amount
	}
	clock.Advance(hold - time.Minute)
	if got := release(); got != 0 {
		t.Fatalf("released %.2f a minute before the hold ends", got)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 0, 80.7)
	clock.Advance(time.Minute)
	if got := release(); got != 80.7 {
		t.Fatalf("released %.2f when the hold ended", got)
	}
	if got := release(); got != 0 {
		t.Fatalf("released %.2f twice", got)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 80.7, 0)
	txs := w.transactions(t, w.owner, w.store)
	if e, r := txOf(txs, "earning"), txOf(txs, "release"); len(e) != 1 || e[0].Status != "completed" || len(r) != 1 || r[0].Amount != 80.7 || r[0].Status != "completed" {
		t.Fatalf("transactions after the release %+v", txs)
	}
	w.reconciled(t, w.store)

	// The hold follows the configuration in force when the order is credited.
	cfg := okAs[platformConfig](t, s.Query(sh.admin, "admins.platformAdmin.getActivePlatformConfig", nil))
	st.MustOK(t, s.Mutation(sh.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg.ID, "walletSettings": map[string]any{"pendingBalanceHoldDays": 2}}))
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	p := sh.payment("pi_earn_2")
	p.AmountFils = 1235 + 1000
	if r := deliver(s, processor.Event("evt_earn_2", "payment_intent.succeeded", p)); r.Status != 200 {
		t.Fatalf("second order: %d %s", r.Status, r.Body)
	}
	var second orderView
	st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_earn_2"})).Decode(t, &second)
	credited = clock.Now()
	moveOrder(t, s, sh.owner, second.ID)
	eventually(t, "the second order's earnings", func() bool { return w.getWallet(t, w.owner, w.store).TotalOrders == 2 })
	earnings = txOf(w.transactions(t, w.admin, w.store), "earning")
	if earnings[0].Amount != *second.StoreEarnings || *earnings[0].ReleaseDate != credited.Add(2*24*time.Hour).UnixMilli() {
		t.Fatalf("second earning %+v, order earns %v", earnings[0], *second.StoreEarnings)
	}

	// Redeliveries: the same event again (the consumer's dedupe drops it), and
	// under a fresh id (as if its dedupe record were gone: the earning's unique
	// source key holds). A sentinel event on the same key, and so the same
	// partition behind them, proves both were handled before it: it names an
	// order the customers service does not know, so it credits nothing and is
	// counted (issue 18, item 1).
	unknown := unconfirmedEarnings(s, "unknown_order")
	raw := findEvent(t, s.Brokers, "orders", second.ID, func(e events.Envelope) bool {
		var d struct{ To string }
		return e.Type == "order.status_changed" && json.Unmarshal(e.Data, &d) == nil && d.To == "delivered"
	})
	publish(t, s, "orders", second.ID, raw)
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	env["id"] = "evt_redelivered_copy"
	copyRaw, _ := json.Marshal(env)
	publish(t, s, "orders", second.ID, copyRaw)
	data := env["data"].(map[string]any)
	data["orderId"], data["storeEarningsFils"] = "ord_sentinel", 100
	env["id"] = "evt_sentinel"
	sentinel, _ := json.Marshal(env)
	publish(t, s, "orders", second.ID, sentinel)
	awaitUnconfirmed(t, s, "unknown_order", unknown)
	wallet = w.getWallet(t, w.owner, w.store)
	if want := 80.7 + *second.StoreEarnings; wallet.TotalOrders != 2 || wallet.TotalEarnings != want || wallet.PendingBalance != *second.StoreEarnings {
		t.Fatalf("after redeliveries: %+v, want total earnings %.2f", wallet, want)
	}
	w.reconciled(t, w.store)
}

// TestPayoutStatistics: every figure of getPayoutStatistics, with "today" and
// "this month" in Dubai's time (UTC+4): at 00:30 on 1 April in Dubai (20:30
// UTC on 31 March) a payout completed at 23:30 Dubai time the evening before
// is neither today's nor this month's.
func TestPayoutStatistics(t *testing.T) {
	dubai := time.FixedZone("Dubai", 4*3600)
	clock := newTestClock(time.Date(2026, 3, 31, 23, 0, 0, 0, dubai))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	florist := newStore(t, s, w.admin, "Florist", "owner-2", "", "")
	floristWallet := w.getWallet(t, w.admin, florist).ID
	owner2 := s.Token("owner-2")
	w.credit(t, w.store, w.wallet, 10000)
	w.credit(t, florist, floristWallet, 10000)
	stats := func(args map[string]any) (r struct {
		TotalPendingRequests          int     `json:"totalPendingRequests"`
		TotalPendingAmount            float64 `json:"totalPendingAmount"`
		TotalProcessingRequests       int     `json:"totalProcessingRequests"`
		TotalProcessingAmount         float64 `json:"totalProcessingAmount"`
		TotalCompletedToday           int     `json:"totalCompletedToday"`
		TotalCompletedTodayAmount     float64 `json:"totalCompletedTodayAmount"`
		TotalCompletedThisMonth       int     `json:"totalCompletedThisMonth"`
		TotalCompletedThisMonthAmount float64 `json:"totalCompletedThisMonthAmount"`
		AverageProcessingTime         float64 `json:"averageProcessingTime"`
		TopStoresByPayouts            []struct {
			StoreID      string  `json:"storeId"`
			StoreName    string  `json:"storeName"`
			TotalPayouts int     `json:"totalPayouts"`
			TotalAmount  float64 `json:"totalAmount"`
		} `json:"topStoresByPayouts"`
	}) {
		t.Helper()
		st.MustOK(t, s.Query(w.admin, opStatistics, args)).Decode(t, &r)
		return r
	}
	if r := stats(nil); r.TotalPendingRequests != 0 || r.AverageProcessingTime != 0 || r.TopStoresByPayouts == nil || len(r.TopStoresByPayouts) != 0 {
		t.Fatalf("statistics of nothing %+v", r)
	}

	// 23:00 Dubai, 31 March: requested, paid half an hour later.
	p1 := okID(t, w.request(w.owner, w.store, 500))
	st.MustOK(t, w.move(opApprove, p1))
	st.MustOK(t, w.move(opProcessing, p1, "processingMethod", "bank_transfer"))
	clock.Advance(30 * time.Minute)
	st.MustOK(t, w.move(opComplete, p1))
	r := stats(nil)
	if r.TotalCompletedToday != 1 || r.TotalCompletedTodayAmount != 500 || r.TotalCompletedThisMonth != 1 || r.AverageProcessingTime != 0.5 ||
		len(r.TopStoresByPayouts) != 1 || r.TopStoresByPayouts[0].StoreID != w.store || r.TopStoresByPayouts[0].StoreName != "Bakery" {
		t.Fatalf("on 31 March %+v", r)
	}

	// 00:30 Dubai, 1 April (still 31 March in UTC): a new day and a new month.
	clock.Advance(time.Hour)
	r = stats(nil)
	if r.TotalCompletedToday != 0 || r.TotalCompletedThisMonth != 0 || r.TotalCompletedThisMonthAmount != 0 || len(r.TopStoresByPayouts) != 0 || r.AverageProcessingTime != 0.5 {
		t.Fatalf("just after midnight in Dubai %+v", r)
	}
	startOfApril := clock.Now().Add(-30 * time.Minute).UnixMilli()

	// Two hours each, on 1 April: Bakery 1000 + 200, Florist 300.
	p2 := okID(t, w.request(w.owner, w.store, 1000))
	p3 := okID(t, w.request(owner2, florist, 300))
	p4 := okID(t, w.request(w.owner, w.store, 200))
	clock.Advance(2 * time.Hour)
	for _, p := range []string{p2, p3, p4} {
		w.pay(t, p)
	}
	// Open ones: requested, approved (pending) and processing.
	okID(t, w.request(w.owner, w.store, 150))
	p6 := okID(t, w.request(owner2, florist, 160))
	st.MustOK(t, w.move(opApprove, p6))
	p7 := okID(t, w.request(w.owner, w.store, 170))
	st.MustOK(t, w.move(opApprove, p7))
	st.MustOK(t, w.move(opProcessing, p7, "processingMethod", "manual"))
	// Closed ones count nowhere.
	p8 := okID(t, w.request(w.owner, w.store, 180))
	st.MustOK(t, w.move(opReject, p8, "rejectionReason", "duplicate"))
	p9 := okID(t, w.request(owner2, florist, 190))
	st.MustOK(t, w.move(opApprove, p9))
	st.MustOK(t, w.move(opFail, p9, "failureReason", "bounced", "restoreBalance", true))

	r = stats(nil)
	if r.TotalPendingRequests != 2 || r.TotalPendingAmount != 310 || r.TotalProcessingRequests != 1 || r.TotalProcessingAmount != 170 ||
		r.TotalCompletedToday != 3 || r.TotalCompletedTodayAmount != 1500 || r.TotalCompletedThisMonth != 3 || r.TotalCompletedThisMonthAmount != 1500 {
		t.Fatalf("on 1 April %+v", r)
	}
	if r.AverageProcessingTime != 1.63 { // (0.5 + 2 + 2 + 2) / 4 hours, two decimals
		t.Fatalf("average processing time %v", r.AverageProcessingTime)
	}
	top := r.TopStoresByPayouts
	if len(top) != 2 || top[0].StoreID != w.store || top[0].TotalPayouts != 2 || top[0].TotalAmount != 1200 ||
		top[1].StoreID != florist || top[1].StoreName != "Florist" || top[1].TotalPayouts != 1 || top[1].TotalAmount != 300 {
		t.Fatalf("top stores %+v", top)
	}

	// A date range keeps the payouts requested within it.
	r = stats(map[string]any{"dateRange": map[string]any{"startDate": startOfApril, "endDate": clock.Now().UnixMilli()}})
	if r.AverageProcessingTime != 2 || r.TotalCompletedToday != 3 || r.TotalPendingRequests != 2 {
		t.Fatalf("April only %+v", r)
	}
	r = stats(map[string]any{"dateRange": map[string]any{"startDate": 0, "endDate": startOfApril - 1}})
	if r.AverageProcessingTime != 0.5 || r.TotalCompletedToday != 0 || r.TotalPendingRequests != 0 || r.TotalProcessingRequests != 0 {
		t.Fatalf("March only %+v", r)
	}
	expectError(t, s.Query(w.admin, opStatistics, map[string]any{"dateRange": map[string]any{"startDate": 10, "endDate": 9}}), "INVALID_ARGUMENT", "dateRange.endDate")
	expectError(t, s.Query(w.admin, opStatistics, map[string]any{"dateRange": map[string]any{"startDate": 10}}), "INVALID_ARGUMENT", "dateRange.endDate")
	expectError(t, s.Query(w.owner, opStatistics, nil), "PERMISSION_DENIED")
	w.reconciled(t, w.store)
	w.reconciled(t, florist)
}

// TestWalletConcurrency: bursts against one wallet never overdraw it, let
// through exactly what the balance allows, and leave it equal to its ledger.
func TestWalletConcurrency(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	// Each racing call has its own key and is asked again under it while
	// the answer says it may not have run (keyedAnswer): the answers
	// counted are the calls' own, on a quiet machine or a busy one.
	call := func(token, key, op string, args map[string]any) st.Result {
		return keyedAnswer(t, s, token, key, op, args)
	}

	t.Run("200 deductions against 150 AED", func(t *testing.T) {
		w.credit(t, w.store, w.wallet, 150)
		results := st.Concurrently(200, func(i int) st.Result {
			return call(w.admin, fmt.Sprint("deduct-", i), opAdjust, adjustArgs(w.store, w.wallet, "deduct_balance", 1))
		})
		if ok := st.CountOK(t, results, "FAILED_PRECONDITION"); ok != 150 {
			t.Fatalf("%d deductions went through, want 150", ok)
		}
		expectBalances(t, w.getWallet(t, w.owner, w.store), 0, 0)
		if n := len(txOf(w.transactionsAll(t), "penalty")); n != 150 {
			t.Fatalf("%d penalty transactions", n)
		}
		w.reconciled(t, w.store)
	})

	t.Run("20 payout requests of 600 against 1000 AED", func(t *testing.T) {
		w.credit(t, w.store, w.wallet, 1000)
		results := st.Concurrently(20, func(i int) st.Result {
			return call(w.owner, fmt.Sprint("request-", i), opRequestPayout, requestArgs(w.store, 600))
		})
		if ok := st.CountOK(t, results, "FAILED_PRECONDITION"); ok != 1 {
			t.Fatalf("%d requests went through, want 1", ok)
		}
		expectBalances(t, w.getWallet(t, w.owner, w.store), 400, 0)
		if n := len(w.pending(t, nil)); n != 1 {
			t.Fatalf("%d payouts recorded", n)
		}
		w.reconciled(t, w.store)
	})

	t.Run("approve and reject one payout at once", func(t *testing.T) {
		w.credit(t, w.store, w.wallet, 600)
		for round := range 3 {
			p := okID(t, w.request(w.owner, w.store, 200))
			results := st.Concurrently(20, func(i int) st.Result {
				key := fmt.Sprint("move-", round, "-", i)
				if i%2 == 0 {
					return call(w.admin, key, opApprove, moveArgsOf(p))
				}
				return call(w.admin, key, opReject, moveArgsOf(p, "rejectionReason", "raced"))
			})
			if ok := st.CountOK(t, results, "FAILED_PRECONDITION"); ok != 1 {
				t.Fatalf("round %d: %d moves won, want 1", round, ok)
			}
			got := w.payout(t, p)
			if len(got.History) != 2 || (got.Status != "approved" && got.Status != "cancelled") {
				t.Fatalf("round %d: payout %+v", round, got)
			}
			w.reconciled(t, w.store)
		}
	})

	t.Run("mixed adjustments and payout moves", func(t *testing.T) {
		w.credit(t, w.store, w.wallet, 2000)
		p := okID(t, w.request(w.owner, w.store, 500))
		st.MustOK(t, w.move(opApprove, p))
		results := st.Concurrently(60, func(i int) st.Result {
			key := fmt.Sprint("mixed-", i)
			switch i % 4 {
			case 0:
				return call(w.admin, key, opAdjust, adjustArgs(w.store, w.wallet, "add_pending", 3))
			case 1:
				return call(w.admin, key, opAdjust, adjustArgs(w.store, w.wallet, "move_pending_to_available", 2))
			case 2:
				return call(w.admin, key, opAdjust, adjustArgs(w.store, w.wallet, "deduct_balance", 7))
			}
			return call(w.admin, key, opFail, moveArgsOf(p, "failureReason", "raced", "restoreBalance", true))
		})
		failedOK := 0
		for i, r := range results {
			if r.Status != 200 && r.Code() != "FAILED_PRECONDITION" {
				t.Fatalf("unexpected answer %d %s", r.Status, r.Body)
			}
			if i%4 == 3 && r.Status == 200 {
				failedOK++
			}
		}
		if failedOK != 1 {
			t.Fatalf("the payout failed %d times", failedOK)
		}
		w.reconciled(t, w.store)
	})
}

// transactionsAll pages through all the store's transactions as an administrator.
func (w *payoutsWorld) transactionsAll(t *testing.T) []txView {
	t.Helper()
	var all []txView
	var cursor any
	for {
		var r struct {
			Page           []txView `json:"page"`
			IsDone         bool     `json:"isDone"`
			ContinueCursor string   `json:"continueCursor"`
		}
		st.MustOK(t, w.s.Query(w.admin, opListTx, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 100, "cursor": cursor}})).Decode(t, &r)
		all = append(all, r.Page...)
		if r.IsDone {
			return all
		}
		cursor = r.ContinueCursor
	}
}
