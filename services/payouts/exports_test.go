package payouts

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// TestOneExportPerCaller: while an export of owner-1's is being written
// (its slot claimed), another of owner-1's is refused 429 RATE_LIMITED
// export_in_progress before any count, and owner-2's goes through; a
// refused export (a bad period) gives its claim back, and so does a
// finished one.
func TestOneExportPerCaller(t *testing.T) {
	ts := newTestSvc(t)
	store := ids.New("stores")
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/:owner/payouts.csv", func(c *fiber.Ctx) error {
		c.SetUserContext(ownerCtxAt(store, c.Params("owner"), 1))
		return ts.storePayoutsCSVRoute(c)
	})
	get := func(owner, query string) (int, string) {
		t.Helper()
		resp, err := app.Test(httptest.NewRequest("GET", "/"+owner+"/payouts.csv?"+query, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	period := "from=0&to=86400000"
	release, ok := ts.exports.Claim("owner-1") // an export of owner-1's being written
	if !ok {
		t.Fatal("claim")
	}
	if code, body := get("owner-1", period); code != 429 || !strings.Contains(body, "RATE_LIMITED") || !strings.Contains(body, httpserver.ReasonExportInProgress) {
		t.Fatalf("owner-1's second export: %d %s", code, body)
	}
	if code, body := get("owner-2", period); code != 200 {
		t.Fatalf("owner-2's export: %d %s", code, body)
	}
	release()
	if code, body := get("owner-1", "from=5&to=1"); code != 400 {
		t.Fatalf("a bad period: %d %s", code, body)
	}
	for i := 0; i < 2; i++ { // the refusal and the first export gave the slot back
		if code, body := get("owner-1", period); code != 200 {
			t.Fatalf("owner-1's export %d after the first ended: %d %s", i, code, body)
		}
	}
}

// TestWalletsExportWhileBalancesMove: the wallets export writes every wallet
// exactly once although every balance changes while it runs (the order of
// the balances reversed after its first row, when its first page of 100 is
// read and the second is not): it pages on the wallets' ids, which no
// balance moves. Paging on the balance, the second page would repeat
// wallets of the first and miss others.
func TestWalletsExportWhileBalancesMove(t *testing.T) {
	ts := newTestSvc(t)
	ctx := context.Background()
	const n = 150
	wallets := ts.db.Collection(storage.WalletsColl)
	var ids_ []string
	for i := 0; i < n; i++ {
		store := ids.New("stores")
		if err := ts.wallets.Open(ctx, domain.StoreInfo{ID: store, Name: "S"}, 1); err != nil {
			t.Fatal(err)
		}
		id := domain.WalletIDOf(store)
		ids_ = append(ids_, id)
		if _, err := wallets.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"availableBalance": money.Fils(i * 100)}}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := ts.walletsExport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	err = rows(func(cells ...string) error {
		if len(seen) == 0 {
			for i, id := range ids_ {
				if _, err := wallets.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"availableBalance": money.Fils((n - i) * 100)}}); err != nil {
					return err
				}
			}
		}
		seen[cells[0]]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids_ {
		if seen[id] != 1 {
			t.Errorf("wallet %s written %d times", id, seen[id])
		}
	}
	if len(seen) != n {
		t.Errorf("%d wallets written, want %d", len(seen), n)
	}
}

// TestWalletSumAddsAsItReads: the totals of wallets added one at a time
// (getWalletTotals' scan, holding none) are their figures summed in fils,
// the debts only of the wallets below zero.
func TestWalletSumAddsAsItReads(t *testing.T) {
	var sum WalletSum
	if got := sum.Totals(); got != (WalletTotals{}) {
		t.Fatalf("empty sum %+v", got)
	}
	for _, w := range []domain.Wallet{
		{AvailableBalance: 10_10, PendingBalance: 5_00, TotalEarnings: 20_00, TotalPayouts: 4_90, TotalOrders: 3},
		{AvailableBalance: -2_05, DisputedBalance: 1_00, TotalEarnings: 1_00, TotalOrders: 1},
		{AvailableBalance: 0_01, PendingBalance: 0_02},
	} {
		sum.Add(&w)
	}
	want := WalletTotals{Wallets: 3, AvailableBalance: 8.06, PendingBalance: 5.02, DisputedBalance: 1, Debt: 2.05, InDebt: 1,
		TotalEarnings: 21, TotalPayouts: 4.9, TotalOrders: 4}
	if got := sum.Totals(); got != want {
		t.Fatalf("totals %+v, want %+v", got, want)
	}
}
