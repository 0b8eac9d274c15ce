package domain

import (
	"errors"
	"strings"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// reasonOf is an error's details.reason and details.balance.
func reasonOf(err error) (string, string) {
	e := apperr.From(err)
	r, _ := e.Details["reason"].(string)
	b, _ := e.Details["balance"].(string)
	return r, b
}

// The no-overdraft rule: a debit equal to a balance is allowed and leaves
// it at zero; one fils more is refused, and the wallet is left as it was.
func TestWalletChangeNeverOverdraws(t *testing.T) {
	cases := []struct {
		name    string
		have    Balances
		d       Balances
		balance string // "" allowed, else the balance refused
		msg     string
	}{
		{"available exactly", Balances{Available: 100_00}, Balances{Available: -100_00}, "", ""},
		{"available one fils short", Balances{Available: 100_00}, Balances{Available: -100_01}, "available",
			"insufficient available balance: 100.00 AED available, 100.01 AED needed"},
		{"available empty", Balances{}, Balances{Available: -1}, "available", "insufficient available balance: 0.00 AED available, 0.01 AED needed"},
		{"pending exactly", Balances{Pending: 5_00}, Balances{Pending: -5_00}, "", ""},
		{"pending one fils short", Balances{Pending: 5_00}, Balances{Pending: -5_01}, "pending",
			"insufficient pending balance: 5.00 AED pending, 5.01 AED needed"},
		{"move exactly", Balances{Pending: 7_00}, Balances{Available: 7_00, Pending: -7_00}, "", ""},
		{"available checked first", Balances{}, Balances{Available: -1, Pending: -1}, "available", "insufficient available balance"},
		{"credit of an empty wallet", Balances{}, Balances{Available: 1, Pending: 1}, "", ""},
		{"a credit does not cover a debit of the other balance", Balances{Available: 10}, Balances{Available: 10, Pending: -1}, "pending", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &Wallet{AvailableBalance: c.have.Available, PendingBalance: c.have.Pending, UpdatedAt: 1}
			err := w.Change(c.d, 99)
			if c.balance == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got, want := w.Balances(), c.have.Plus(c.d); got != want || w.UpdatedAt != 99 {
					t.Fatalf("balances %+v at %d, want %+v at 99", got, w.UpdatedAt, want)
				}
				if !w.Balances().Valid() {
					t.Fatalf("a balance went negative: %+v", w.Balances())
				}
				return
			}
			if apperr.CodeOf(err) != apperr.FailedPrecondition {
				t.Fatalf("err %v, want FAILED_PRECONDITION", err)
			}
			if r, b := reasonOf(err); r != "insufficient_balance" || b != c.balance {
				t.Fatalf("details %v/%v, want insufficient_balance/%s", r, b, c.balance)
			}
			if !strings.Contains(apperr.From(err).Message, c.msg) {
				t.Fatalf("message %q, want %q", apperr.From(err).Message, c.msg)
			}
			if w.Balances() != c.have || w.UpdatedAt != 1 {
				t.Fatalf("a refused change changed the wallet: %+v", w)
			}
		})
	}
}

func TestNoWallet(t *testing.T) {
	if err := NoWallet("wal_x", Balances{Available: -1}); apperr.CodeOf(err) != apperr.FailedPrecondition {
		t.Fatalf("a debit of a wallet not open: %v, want insufficient balance", err)
	}
	if err := NoWallet("wal_x", Balances{Available: 1}); apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "wallet wal_x does not exist") {
		t.Fatalf("a credit of a wallet not open: %v, want NOT_FOUND", err)
	}
}

func TestCreditAndSettleMove(t *testing.T) {
	w := &Wallet{}
	if err := w.Credit(30_00, 5); err != nil || w.PendingBalance != 30_00 || w.TotalEarnings != 30_00 || w.TotalOrders != 1 {
		t.Fatalf("credit: %+v %v", w, err)
	}
	w.AvailableBalance = 0
	for _, c := range []struct {
		m       Move
		restore bool
		avail   money.Fils
		paid    money.Fils
	}{
		{MoveApprove, false, 0, 0}, {MoveProcessing, false, 0, 0},
		{MoveReject, false, 10_00, 0}, {MoveHandover, false, 10_00, 0},
		{MoveFail, false, 0, 0}, {MoveFail, true, 10_00, 0},
		{MoveComplete, false, 0, 10_00},
	} {
		w := &Wallet{}
		if err := w.SettleMove(c.m, c.restore, 10_00, 77); err != nil {
			t.Fatal(err)
		}
		if w.AvailableBalance != c.avail || w.TotalPayouts != c.paid {
			t.Errorf("%s (restore %t): available %d, total payouts %d; want %d, %d", c.m, c.restore, w.AvailableBalance, w.TotalPayouts, c.avail, c.paid)
		}
		if (c.m == MoveComplete) != (w.LastPayoutDate != nil) {
			t.Errorf("%s: lastPayoutDate %v", c.m, w.LastPayoutDate)
		}
	}
}

func TestPayoutAmountBounds(t *testing.T) {
	cfg := DefaultWalletSettings // 100 to 50,000 AED, fee 2
	asked := 0
	available := func() (money.Fils, error) { asked++; return 12_34, nil }
	for _, c := range []struct {
		amount money.Fils
		reason string
	}{
		{100_00, ""}, {50_000_00, ""}, {99_99, "below_minimum_payout"}, {50_000_01, "above_maximum_payout"},
	} {
		err := cfg.CheckAmount(c.amount, available)
		r, _ := reasonOf(err)
		if r != c.reason {
			t.Errorf("%d fils: reason %q (%v), want %q", c.amount, r, err, c.reason)
		}
		if err != nil && apperr.From(err).Details["availableBalance"] != 12.34 {
			t.Errorf("details %v", apperr.From(err).Details)
		}
	}
	fee := WalletSettings{MinPayout: 1_00, MaxPayout: 10_00, ProcessingFee: 2_00}
	if r, _ := reasonOf(fee.CheckAmount(2_00, available)); r != "not_above_fee" {
		t.Fatalf("an amount equal to the fee: %q", r)
	}
	if err := fee.CheckAmount(2_01, available); err != nil {
		t.Fatalf("one fils above the fee: %v", err)
	}
	if asked != 3 {
		t.Fatalf("the balance was read %d times, want only for the 3 refusals", asked)
	}
	boom := errors.New("boom")
	if err := cfg.CheckAmount(1, func() (money.Fils, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("the balance's read error: %v", err)
	}
}

func TestPayoutShortOfTellsWhenHeldEarningsRelease(t *testing.T) {
	cfg := &DefaultWalletSettings
	w := &Wallet{AvailableBalance: 50_00, PendingBalance: 200_00}
	oldest := &Transaction{HeldRemaining: 80_00, ReleaseAt: 1_700_000_000_000}
	err := PayoutShortOf("wal_x", w, 150_00, cfg, oldest)
	d := apperr.From(err).Details
	if apperr.CodeOf(err) != apperr.FailedPrecondition || d["reason"] != "insufficient_balance" || d["nextReleaseAt"] != int64(1_700_000_000_000) ||
		d["nextReleaseAmount"] != 80.0 || d["pendingBalanceHoldDays"] != 7 {
		t.Fatalf("%v %v", err, d)
	}
	if !strings.Contains(err.Error(), "insufficient available balance: 50.00 AED available, 150.00 AED needed; 200.00 AED pending") {
		t.Fatalf("message %q", err)
	}
	if err := PayoutShortOf("wal_x", &Wallet{AvailableBalance: 1}, 100_00, cfg, nil); strings.Contains(err.Error(), "pending") {
		t.Fatalf("nothing pending, yet: %q", err)
	}
	if err := PayoutShortOf("wal_x", nil, 100_00, cfg, nil); !strings.Contains(err.Error(), "0.00 AED available, 100.00 AED needed") {
		t.Fatalf("a wallet not open: %v", err)
	}
	// Money held by open disputes is part of the answer: the refusal's
	// figures are the whole wallet, like a read's.
	err = PayoutShortOf("wal_x", &Wallet{AvailableBalance: 10_00, DisputedBalance: 183_40}, 100_00, cfg, nil)
	if d := apperr.From(err).Details; d["disputedBalance"] != 183.4 || !strings.Contains(err.Error(), "183.40 AED is held by open disputes") {
		t.Fatalf("disputed not told: %v %v", err, d)
	}
}

func TestTakeHeldOldestFirst(t *testing.T) {
	held := []Transaction{{ID: "e1", HeldRemaining: 10}, {ID: "e2", HeldRemaining: 0}, {ID: "e3", HeldRemaining: 30}}
	takes, from := TakeHeld(held, 25)
	if from != 25 || len(takes) != 2 || takes[0] != (Take{"e1", 10, 10}) || takes[1] != (Take{"e3", 30, 15}) {
		t.Fatalf("%+v %d", takes, from)
	}
	takes, from = TakeHeld(held, 100)
	if from != 40 || len(takes) != 2 {
		t.Fatalf("more than held: %+v %d (the rest comes from other pending credits)", takes, from)
	}
	e := &Transaction{HeldRemaining: 50}
	if e.Releasable(80) != 50 || e.Releasable(20) != 20 || e.Releasable(-5) != 0 {
		t.Fatal("a release moves what the earning holds, never more than is pending")
	}
}
