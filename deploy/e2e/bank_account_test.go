package e2e

import (
	"encoding/json"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

type bankAccountView struct {
	IBAN              string `json:"IBAN"`
	IBANLast4         string `json:"ibanLast4"`
	BankName          string `json:"bankName"`
	AccountHolderName string `json:"accountHolderName"`
	UpdatedAt         int64  `json:"updatedAt"`
}

// secondIBAN is another valid UAE IBAN (mod 97 = 1).
const secondIBAN = "AE420260001015333439101"

// TestBankAccount: nothing saved is null; setBankAccount saves the IBAN
// normalised, validated as a payout request's (a bad one INVALID_ARGUMENT at
// bankDetails.IBAN, nothing saved), and publishes
// payouts.bank_account_changed with the last four characters only; a payout
// request with saveBankAccount saves its account in the same call, and the
// payout carries it; only the owner reads or sets it; after a handover the
// new owner gets null (the former owner's IBAN is never offered), the
// former owner is refused, and the new owner's own account is theirs.
func TestBankAccount(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	get := func(token string) *bankAccountView {
		t.Helper()
		return okAs[*bankAccountView](t, s.Query(token, "stores.payouts.getBankAccount", map[string]any{"storeId": w.store}))
	}
	set := func(token, iban string) st.Result {
		return s.Mutation(token, "stores.payouts.setBankAccount", map[string]any{"storeId": w.store,
			"bankDetails": map[string]any{"IBAN": iban, "bankName": "Emirates NBD", "accountHolderName": "Sara Al Marri"}})
	}
	if a := get(w.owner); a != nil {
		t.Fatalf("nothing saved: %+v", a)
	}
	expectError(t, set(w.owner, "AE070331234567890123457"), "INVALID_ARGUMENT", "bankDetails.IBAN")
	if a := get(w.owner); a != nil {
		t.Fatalf("a refused IBAN was saved: %+v", a)
	}
	saved := okAs[bankAccountView](t, set(w.owner, "ae07 0331 2345 6789 0123 456"))
	if saved.IBAN != validIBAN || saved.IBANLast4 != "3456" || saved.BankName != "Emirates NBD" {
		t.Fatalf("saved %+v", saved)
	}
	if a := get(w.owner); a == nil || *a != saved {
		t.Fatalf("read back %+v, saved %+v", a, saved)
	}
	raw := findEvent(t, s.Brokers, "wallets", w.wallet, func(e events.Envelope) bool { return e.Type == "payouts.bank_account_changed" })
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if d := env.Data; d["storeId"] != w.store || d["walletId"] != w.wallet || d["ownerUserId"] != "owner-1" || d["ibanLast4"] != "3456" ||
		d["changedBy"] != "owner-1" || d["eventTime"] == nil || len(d) != 6 {
		t.Fatalf("event data %v", d)
	}
	// Administrators and other users neither read nor set it.
	expectError(t, s.Query(w.admin, "stores.payouts.getBankAccount", map[string]any{"storeId": w.store}), "PERMISSION_DENIED")
	expectError(t, set(s.Token("owner-2"), secondIBAN), "PERMISSION_DENIED")

	// A request that saves its account.
	w.credit(t, w.store, w.wallet, 500)
	p := okID(t, s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 150, "saveBankAccount": true,
		"bankDetails": map[string]any{"IBAN": secondIBAN, "bankName": "ADCB", "accountHolderName": "Sara Al Marri"}}))
	if a := get(w.owner); a == nil || a.IBAN != secondIBAN || a.BankName != "ADCB" {
		t.Fatalf("after the request with saveBankAccount: %+v", a)
	}
	if got := w.payout(t, p); got.BankDetails.IBAN != secondIBAN {
		t.Fatalf("payout %+v", got)
	}
	// Without it, the saved account stays; a refused request saves nothing.
	okID(t, w.request(w.owner, w.store, 150))
	expectError(t, s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 5000, "saveBankAccount": true,
		"bankDetails": bank()}), "FAILED_PRECONDITION")
	if a := get(w.owner); a == nil || a.IBAN != secondIBAN {
		t.Fatalf("a request without saveBankAccount, or refused, changed the account: %+v", a)
	}

	// The store handed to owner-2.
	st.MustOK(t, s.Mutation(w.admin, "admins.catalog.updateStore", map[string]any{"storeId": w.store, "ownerUserId": "owner-2"}))
	eventually(t, "the former owner's requested payouts cancelled", func() bool { return w.payout(t, p).Status == "cancelled" })
	owner2 := s.Token("owner-2")
	if a := get(owner2); a != nil {
		t.Fatalf("the new owner is offered the former owner's account: %+v", a)
	}
	expectError(t, s.Query(w.owner, "stores.payouts.getBankAccount", map[string]any{"storeId": w.store}), "PERMISSION_DENIED")
	okAs[bankAccountView](t, set(owner2, validIBAN))
	if a := get(owner2); a == nil || a.IBAN != validIBAN {
		t.Fatalf("the new owner's own account: %+v", a)
	}
}
