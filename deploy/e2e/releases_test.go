package e2e

import (
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

type upcomingReleases struct {
	Releases []struct {
		Day    string  `json:"day"`
		At     int64   `json:"at"`
		Amount float64 `json:"amount"`
		Count  int     `json:"count"`
	} `json:"releases"`
	More bool `json:"more"`
}

// TestUpcomingReleases: two delivered orders two days apart are two days
// of releases (Dubai days of their release times, the earliest first); a
// partial early release lowers the first day, a whole one removes it; the
// owner and an administrator read it, another user does not.
func TestUpcomingReleases(t *testing.T) {
	clock := newTestClock(time.Date(2026, 5, 10, 8, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	upcoming := func(token string) upcomingReleases {
		t.Helper()
		return okAs[upcomingReleases](t, s.Query(token, "stores.wallet.getUpcomingReleases", map[string]any{"storeId": w.store}))
	}
	if r := upcoming(w.owner); len(r.Releases) != 0 || r.More {
		t.Fatalf("nothing held: %+v", r)
	}
	if r := deliver(s, processor.Event("evt_up_1", "payment_intent.succeeded", sh.payment("pi_up_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	moveOrder(t, s, sh.owner, orderOf(t, s, sh.user, "pi_up_1").ID)
	eventually(t, "the first earnings", func() bool { return w.getWallet(t, w.owner, w.store).TotalOrders == 1 })
	clock.Advance(2 * 24 * time.Hour)
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	p := sh.payment("pi_up_2")
	p.AmountFils = 1235 + 1000
	if r := deliver(s, processor.Event("evt_up_2", "payment_intent.succeeded", p)); r.Status != 200 {
		t.Fatalf("second order: %d %s", r.Status, r.Body)
	}
	second := orderOf(t, s, sh.admin, "pi_up_2")
	moveOrder(t, s, sh.owner, second.ID)
	eventually(t, "the second earnings", func() bool { return w.getWallet(t, w.owner, w.store).TotalOrders == 2 })
	earnings := txOf(w.transactions(t, w.admin, w.store), "earning") // newest first
	if len(earnings) != 2 {
		t.Fatalf("earnings %+v", earnings)
	}
	r := upcoming(w.owner)
	if len(r.Releases) != 2 || r.More ||
		r.Releases[0].Day != "2026-05-17" || r.Releases[0].At != *earnings[1].ReleaseDate || r.Releases[0].Amount != 80.7 || r.Releases[0].Count != 1 ||
		r.Releases[1].Day != "2026-05-19" || r.Releases[1].At != *earnings[0].ReleaseDate || r.Releases[1].Amount != *second.StoreEarnings {
		t.Fatalf("releases %+v (earnings %+v)", r, earnings)
	}
	// A partial early release takes from the oldest earning first.
	st.MustOK(t, w.adjust(w.store, w.wallet, "move_pending_to_available", 50))
	if r := upcoming(w.admin); len(r.Releases) != 2 || r.Releases[0].Amount != 30.7 || r.Releases[1].Amount != *second.StoreEarnings {
		t.Fatalf("after releasing 50 early: %+v", r)
	}
	st.MustOK(t, w.adjust(w.store, w.wallet, "move_pending_to_available", 30.7))
	if r := upcoming(w.owner); len(r.Releases) != 1 || r.Releases[0].Day != "2026-05-19" || r.Releases[0].Amount != *second.StoreEarnings {
		t.Fatalf("after releasing the first in whole: %+v", r)
	}
	expectError(t, s.Query(s.Token("owner-2"), "stores.wallet.getUpcomingReleases", map[string]any{"storeId": w.store}), "PERMISSION_DENIED")
}
