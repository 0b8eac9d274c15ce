package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Payouts rows: wallet adjustments on one wallet (every call serialises on
// it) and on 50 wallets, and getPayoutStatistics over 5,000 stored payouts.
const (
	payoutStores      = 50
	payoutsPerStore   = 100 // 5,000 payouts in all
	payoutSetupConc   = 16
	benchPayoutsIBAN  = "AE070331234567890123456"
	benchPayoutAmount = 100 // AED, the default minimum payout
)

var payoutRowNames = []string{"adjustments (one wallet)", "adjustments (50 wallets)", "payout statistics (5,000 payouts)"}

// payoutShop is a store with its wallet and its owner's token.
type payoutShop struct{ store, wallet, owner string }

// payoutShops makes the 50 stores (each opens a wallet) of the payouts rows.
func payoutShops(base string, tok func(sub string, roles ...string) string) ([]payoutShop, error) {
	admin := tok("bench-admin", "admin")
	call := func(token, kind, path string, args any) (json.RawMessage, error) {
		return do(base+"/api/"+kind, token, path, args)
	}
	type shop = payoutShop
	shops := make([]shop, payoutStores)
	var setupErr atomic.Value
	fail := func(err error) {
		if err != nil {
			setupErr.Store(err)
		}
	}
	parallel(payoutStores, payoutSetupConc, func(i int) {
		owner := fmt.Sprintf("bench-payout-owner-%d", i)
		raw, err := call(admin, "mutation", "admins.catalog.createStore", map[string]any{"name": fmt.Sprintf("Payout Store %d", i),
			"ownerUserId": owner, "ownerName": "Owner", "ownerPhone": "+971500000000"})
		if err != nil {
			fail(err)
			return
		}
		var sh shop
		sh.owner = tok(owner)
		_ = json.Unmarshal(raw, &sh.store)
		raw, err = call(sh.owner, "query", "stores.wallet.getWallet", map[string]any{"storeId": sh.store})
		if err != nil {
			fail(err)
			return
		}
		var w struct {
			ID string `json:"_id"`
		}
		_ = json.Unmarshal(raw, &w)
		sh.wallet = w.ID
		shops[i] = sh
	})
	if e, ok := setupErr.Load().(error); ok {
		return nil, fmt.Errorf("payouts setup: %w", e)
	}
	return shops, nil
}

// adjustmentRows: adjustWalletBalance on the first wallet, then on all of them.
func adjustmentRows(base, admin string, shops []payoutShop, conns int, dur, warm time.Duration) []row {
	return []row{adjustOneRow(base, admin, shops[0], conns, dur, warm), adjustEachRow(base, admin, shops, conns, dur, warm)}
}

func adjustBody(sh payoutShop) []byte {
	return body("admins.payoutOperations.adjustWalletBalance", map[string]any{"storeId": sh.store, "walletId": sh.wallet,
		"adjustmentType": "add_balance", "amount": 1, "reason": "bench", "adminUserId": "bench-admin"})
}

// adjustOneRow: every connection adjusts the one wallet.
func adjustOneRow(base, admin string, sh payoutShop, conns int, dur, warm time.Duration) row {
	return load(fmt.Sprintf("(i) adjustWalletBalance, one wallet, c=%d", conns), base+"/api/mutation", admin, adjustBody(sh), conns, dur, warm)
}

// adjustEachRow: connection w adjusts wallet w % len(shops).
func adjustEachRow(base, admin string, shops []payoutShop, conns int, dur, warm time.Duration) row {
	each := make([][]byte, len(shops))
	for i, sh := range shops {
		each[i] = adjustBody(sh)
	}
	return loadEach(fmt.Sprintf("(j) adjustWalletBalance, %d wallets", len(shops)), base+"/api/mutation", admin, each, conns, dur, warm)
}

func benchPayouts(base string, tok func(sub string, roles ...string) string, conns int, dur, warm time.Duration) ([]row, error) {
	admin := tok("bench-admin", "admin")
	call := func(token, kind, path string, args any) (json.RawMessage, error) {
		return do(base+"/api/"+kind, token, path, args)
	}
	shops, err := payoutShops(base, tok)
	if err != nil {
		return nil, err
	}
	rows := adjustmentRows(base, admin, shops, conns, dur, warm)
	var setupErr atomic.Value
	fail := func(err error) {
		if err != nil {
			setupErr.Store(err)
		}
	}

	// 5,000 payouts through the service's own operations (16 at a time): each
	// store credited, 100 requests per store; one in ten then paid (approve,
	// processing, complete), one in ten approved only.
	start := time.Now()
	parallel(len(shops), payoutSetupConc, func(i int) {
		_, err := call(admin, "mutation", "admins.payoutOperations.adjustWalletBalance", map[string]any{"storeId": shops[i].store,
			"walletId": shops[i].wallet, "adjustmentType": "add_balance", "amount": payoutsPerStore * benchPayoutAmount, "reason": "bench payouts",
			"adminUserId": "bench-admin"})
		fail(err)
	})
	payouts := make([]string, payoutStores*payoutsPerStore)
	parallel(len(payouts), payoutSetupConc, func(i int) {
		sh := shops[i%payoutStores]
		raw, err := call(sh.owner, "mutation", "stores.payouts.requestPayout", map[string]any{"storeId": sh.store, "amount": benchPayoutAmount,
			"bankDetails": map[string]any{"IBAN": benchPayoutsIBAN, "bankName": "Bench Bank", "accountHolderName": "Bench Owner"}})
		if err == nil {
			err = json.Unmarshal(raw, &payouts[i])
		}
		fail(err)
	})
	parallel(len(payouts), payoutSetupConc, func(i int) {
		if i%10 >= 2 {
			return
		}
		move := func(path string, more ...any) {
			args := map[string]any{"payoutId": payouts[i], "adminUserId": "bench-admin"}
			for k := 0; k+1 < len(more); k += 2 {
				args[more[k].(string)] = more[k+1]
			}
			_, err := call(admin, "mutation", "admins.payoutOperations."+path, args)
			fail(err)
		}
		move("approvePayout")
		if i%10 == 0 {
			move("markPayoutAsProcessing", "processingMethod", "bank_transfer")
			move("completePayout")
		}
	})
	if e, ok := setupErr.Load().(error); ok {
		return nil, fmt.Errorf("payouts setup: %w", e)
	}
	fmt.Printf("payouts setup: %d payouts stored in %v\n", len(payouts), time.Since(start).Round(time.Millisecond))
	stats := body("admins.payoutOperations.getPayoutStatistics", nil)
	raw, err := call(admin, "query", "admins.payoutOperations.getPayoutStatistics", nil)
	if err != nil {
		return nil, err
	}
	var check struct {
		Pending    int `json:"totalPendingRequests"`
		Processing int `json:"totalProcessingRequests"`
		Month      int `json:"totalCompletedThisMonth"`
	}
	_ = json.Unmarshal(raw, &check)
	if check.Pending+check.Processing+check.Month != len(payouts) {
		return nil, errors.New("payouts setup: the statistics do not count every payout: " + string(raw))
	}
	tokens := []string{admin}
	for _, sh := range shops {
		tokens = append(tokens, sh.owner)
	}
	waitQuiet(base, tokens)
	statsRow := load(fmt.Sprintf("(k) getPayoutStatistics, %d payouts", len(payouts)), base+"/api/query", admin, stats, conns, dur, warm)

	return append(rows, statsRow), nil
}

// waitQuiet waits until the notifications of the setup have been stored (the
// newest notification of each of tokens' inboxes stays the same for a
// second), so the measured rows do not share the CPU with that backlog.
func waitQuiet(base string, tokens []string) {
	newest := func() string {
		out := ""
		for _, tok := range tokens {
			raw, err := do(base+"/api/query", tok, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": nil}})
			if err != nil {
				return "" // not settled
			}
			var pg struct {
				Page []struct {
					ID string `json:"_id"`
				} `json:"page"`
			}
			_ = json.Unmarshal(raw, &pg)
			for _, n := range pg.Page {
				out += n.ID
			}
			out += ","
		}
		return out
	}
	last := newest()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		time.Sleep(time.Second)
		now := newest()
		if now != "" && now == last {
			return
		}
		last = now
	}
}
