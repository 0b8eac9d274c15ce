package domain

import "testing"

// TestDisputeVerdictFor: the whole table of dispute.go.
func TestDisputeVerdictFor(t *testing.T) {
	cases := []struct {
		status, outcome string
		want            DisputeVerdict
	}{
		{DisputeNone, "", DisputeRecordOpen},
		{DisputeNone, DisputeWon, DisputeRecordClosed}, // the close heard first
		{DisputeNone, DisputeLost, DisputeRecordClosed},
		{DisputeOpen, "", DisputeIgnore}, // a redelivered opening
		{DisputeOpen, DisputeWon, DisputeClose},
		{DisputeOpen, DisputeLost, DisputeClose},
		{DisputeWon, "", DisputeIgnore}, // a late opening
		{DisputeLost, "", DisputeIgnore},
		{DisputeWon, DisputeWon, DisputeIgnore},
		{DisputeLost, DisputeLost, DisputeIgnore},
		{DisputeWon, DisputeLost, DisputeContradict},
		{DisputeLost, DisputeWon, DisputeContradict},
	}
	for _, c := range cases {
		if got := DisputeVerdictFor(c.status, c.outcome); got != c.want {
			t.Errorf("DisputeVerdictFor(%q, %q) = %d, want %d", c.status, c.outcome, got, c.want)
		}
	}
}

func TestClosedOutcome(t *testing.T) {
	for in, want := range map[string]string{"won": DisputeWon, "lost": DisputeLost, "needs_response": "", "warning_closed": "", "": ""} {
		got, ok := ClosedOutcome(in)
		if got != want || ok != (want != "") {
			t.Errorf("ClosedOutcome(%q) = %q, %v", in, got, ok)
		}
	}
}

func TestDisputeOpenCloseContract(t *testing.T) {
	d := Dispute{ID: "dp_1", PaymentIntentID: "pi_1", OrderID: "ord_1", StoreID: "sto_1", Amount: 1500, Currency: "aed", Reason: "fraudulent", DueBy: 9, OpenedAt: 1}
	if o := d.Open("", 5); o.Status != DisputeOpen || o.ClosedAt != 0 {
		t.Fatalf("open: %+v", o)
	}
	if o := d.Open(DisputeLost, 5); o.Status != DisputeLost || o.ClosedAt != 5 {
		t.Fatalf("open closed: %+v", o)
	}
	c := d.Open("", 0).Close(DisputeWon, 7).Contract()
	if c.DisputeID != "dp_1" || c.Status != DisputeWon || c.ClosedAt != 7 || c.Amount != 1500 || c.OrderID != "ord_1" || c.StoreID != "sto_1" || c.DueBy != 9 || c.OpenedAt != 1 || c.Reason != "fraudulent" {
		t.Fatalf("contract: %+v", c)
	}
}
