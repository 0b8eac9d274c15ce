package domain

import "testing"

func TestBankAccountOfferedOnlyToWhoSavedIt(t *testing.T) {
	a := &BankAccount{SavedBy: "owner-1"}
	for _, c := range []struct {
		acc   *BankAccount
		owner string
		want  bool
	}{
		{a, "owner-1", true},
		{a, "owner-2", false}, // handed over: the former owner's account
		{a, "", false},        // the store is gone
		{nil, "owner-1", false},
	} {
		if got := c.acc.OfferedTo(c.owner); got != c.want {
			t.Errorf("%+v offered to %q: %v, want %v", c.acc, c.owner, got, c.want)
		}
	}
	if IBANLast4("AE070331234567890123456") != "3456" || IBANLast4("AE1") != "AE1" {
		t.Fatal("last four")
	}
}
