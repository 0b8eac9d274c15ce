package domain

import (
	"testing"
	"time"

	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/money"
)

// TestTransferVerdict: the whole table of transfer.go. Only a pending
// transfer is settled; a duplicate or late event changes nothing.
func TestTransferVerdict(t *testing.T) {
	cases := []struct {
		status, event string
		want          Verdict
		late          bool
	}{
		{TransferPending, TypePayoutPaid, ActOnEvent, false},
		{TransferPending, TypePayoutFailed, ActOnEvent, false},
		{TransferPaid, TypePayoutPaid, IgnoreEvent, false},  // duplicate
		{TransferPaid, TypePayoutFailed, IgnoreEvent, true}, // late: warned
		{TransferFailed, TypePayoutFailed, IgnoreEvent, false},
		{TransferFailed, TypePayoutPaid, IgnoreEvent, false}, // failed is final
		{TransferPending, "payout.created", IgnoreEvent, false},
		{TransferPending, TypeSucceeded, IgnoreEvent, false},
	}
	for _, c := range cases {
		if got := TransferVerdict(c.status, c.event); got != c.want {
			t.Errorf("TransferVerdict(%q, %q) = %d, want %d", c.status, c.event, got, c.want)
		}
		if got := LateFailure(c.status, c.event); got != c.late {
			t.Errorf("LateFailure(%q, %q) = %v, want %v", c.status, c.event, got, c.late)
		}
	}
}

func TestTransferOutcome(t *testing.T) {
	for typ, want := range map[string]string{TypePayoutPaid: TransferPaid, TypePayoutFailed: TransferFailed,
		"payout.canceled": "", TypeSucceeded: "", "": ""} {
		if got := TransferOutcome(typ); got != want {
			t.Errorf("TransferOutcome(%q) = %q, want %q", typ, got, want)
		}
	}
}

// A second request for a payout must ask exactly what the first did.
func TestTransferSameRequest(t *testing.T) {
	tr := Transfer{StoreID: "s", Amount: 9800, IBAN: "AE07", AccountHolderName: "Sara"}
	cases := []struct {
		store  string
		amount int64
		iban   string
		holder string
		want   bool
	}{
		{"s", 9800, "AE07", "Sara", true},
		{"t", 9800, "AE07", "Sara", false},
		{"s", 9801, "AE07", "Sara", false},
		{"s", 9800, "AE08", "Sara", false},
		{"s", 9800, "AE07", "Omar", false},
	}
	for _, c := range cases {
		if got := tr.SameRequest(c.store, money.Fils(c.amount), c.iban, c.holder); got != c.want {
			t.Errorf("SameRequest(%+v) = %v", c, got)
		}
	}
}

func TestTransferContract(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123).UTC()
	settled := at.Add(time.Hour)
	got := (&Transfer{PayoutID: "p", TransferID: "po_1", StoreID: "s", Amount: 9800, Status: TransferFailed, FailureCode: "account_closed",
		FailureMessage: "closed", CreatedAt: at, SettledAt: &settled}).Contract()
	want := contract.Transfer{TransferID: "po_1", PayoutID: "p", StoreID: "s", Amount: 9800, Status: TransferFailed, FailureCode: "account_closed",
		FailureMessage: "closed", CreatedAt: at.UnixMilli(), SettledAt: settled.UnixMilli()}
	if got != want {
		t.Fatalf("Contract() = %+v, want %+v", got, want)
	}
	if (&Transfer{CreatedAt: at}).Contract().SettledAt != 0 {
		t.Fatal("an unsettled transfer has a settledAt")
	}
}
