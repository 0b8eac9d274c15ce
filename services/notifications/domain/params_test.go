package domain

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"
	"time"
)

type sample struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// samples are one event or more of every type mapped (testdata/events.json),
// with the time their English text was recorded at.
func samples(t *testing.T) []sample {
	t.Helper()
	raw, err := os.ReadFile("testdata/events.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

var sampleTime = time.Date(2026, 11, 29, 18, 5, 0, 0, time.UTC)

// The English title and body of every notification stay exactly what they
// were before params were added (testdata/english.golden.json was written by
// the mapping as it was): API clients and older consoles show them.
func TestEnglishTextUnchanged(t *testing.T) {
	raw, err := os.ReadFile("testdata/english.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden [][]struct{ Type, Title, Body string }
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	ss := samples(t)
	if len(ss) != len(golden) {
		t.Fatalf("%d samples, %d golden", len(ss), len(golden))
	}
	for i, s := range ss {
		ns, err := For(Event{ID: "evt", Type: s.Type, Time: sampleTime, Data: s.Data})
		if err != nil {
			t.Fatal(s.Type, err)
		}
		if len(ns) != len(golden[i]) {
			t.Fatalf("%s: %d notifications, golden %d", s.Type, len(ns), len(golden[i]))
		}
		for j, n := range ns {
			g := golden[i][j]
			if n.Type != g.Type || n.Title != g.Title || n.Body != g.Body {
				t.Errorf("%s #%d:\n got %s %q %q\nwant %s %q %q", s.Type, j, n.Type, n.Title, n.Body, g.Type, g.Title, g.Body)
			}
		}
	}
}

// bankAccountChanged is payouts.bank_account_changed's sample.
const bankAccountChanged = `{"storeId":"sto_1","walletId":"wal_1","ownerUserId":"u_owner","ibanLast4":"4321","changedBy":"u_owner","eventTime":1795975200000}`

// Every notification carries its type's params, every key (ParamKeys), and
// its recipient's role; every type is covered.
func TestParamsComplete(t *testing.T) {
	ss := append(samples(t), sample{Type: EventBankAccountChanged, Data: json.RawMessage(bankAccountChanged)})
	seen := map[string]bool{}
	for _, s := range ss {
		ns, err := For(Event{ID: "evt", Type: s.Type, Time: sampleTime, Data: s.Data})
		if err != nil {
			t.Fatal(s.Type, err)
		}
		for _, n := range ns {
			seen[n.Type] = true
			want, ok := ParamKeys[n.Type]
			if !ok {
				t.Errorf("%s: no ParamKeys", n.Type)
				continue
			}
			if got := slices.Sorted(maps.Keys(n.Params)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
				t.Errorf("%s (%s): params %v, want keys %v", n.Type, s.Type, n.Params, want)
			}
			wantRole := RoleCustomer
			switch {
			case n.RecipientType == RecipientAdmin:
				wantRole = RoleAdmin
			case n.RecipientUserID == "u_owner" || n.RecipientUserID == "u_old":
				wantRole = RoleStoreOwner
			}
			if n.RecipientRole != wantRole {
				t.Errorf("%s to %s: role %q, want %q", n.Type, n.RecipientUserID, n.RecipientRole, wantRole)
			}
		}
	}
	for typ := range ParamKeys {
		if !seen[typ] {
			t.Errorf("%s: no sample makes it", typ)
		}
	}
}

// The values: amounts in major units, names and reasons as written, times in ms.
func TestParamValues(t *testing.T) {
	byType := map[string]map[string]string{}
	for _, s := range append(samples(t), sample{Type: EventBankAccountChanged, Data: json.RawMessage(bankAccountChanged)}) {
		ns, _ := For(Event{ID: "evt", Type: s.Type, Time: sampleTime, Data: s.Data})
		for _, n := range ns {
			if _, ok := byType[n.Type+"/"+n.RecipientRole]; !ok {
				byType[n.Type+"/"+n.RecipientRole] = n.Params
			}
		}
	}
	for key, want := range map[string]map[string]string{
		"order_created/customer":           {"storeName": "مخبز Falafel", "total": "57.50"},
		"new_order/store_owner":            {"storeName": "مخبز Falafel", "total": "57.50"},
		"order_payment_review/customer":    {"paid": "22.50", "currency": "AED", "total": "4217.50", "reviewReason": "amount_mismatch", "storeName": "Bakery"},
		"order_status/customer":            {"status": "confirmed", "previousStatus": "pending", "storeName": "Bakery"},
		"order_refunded/customer":          {"amount": "30.00", "currency": "AED", "refundedAmount": "30.00", "whole": "false"},
		"refund_failed/admin":              {"amount": "30.00", "currency": "AED", "failureReason": "expired_or_canceled_card"},
		"dispute_opened/admin":             {"amount": "90.00", "currency": "AED", "reason": "product_not_received", "dueBy": "1796104800000"},
		"payment_failed/customer":          {"amount": "57.50", "currency": "AED", "failureMessage": "Your card was declined"},
		"review_flagged/admin":             {"reason": "offensive", "description": "Rude words"},
		"payout_requested/admin":           {"storeName": "Bakery", "requestedAmount": "1000.00", "netAmount": "995.00", "processingFee": "5.00", "reason": "", "method": "", "reference": "", "balanceRestored": "false", "requestedBy": "u_owner", "requestedByName": ""},
		"wallet_adjusted/store_owner":      {"amount": "25.00", "adjustmentType": "add_balance", "reason": "Goodwill", "storeName": "Bakery"},
		"review_response/customer":         {"storeName": "Bakery", "comment": "Thank you!", "updated": "true"},
		"bank_account_changed/store_owner": {"ibanLast4": "4321", "changedAt": "1795975200000", "byOwner": "true"},
	} {
		if got := byType[key]; !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
	if p := byType["payout_completed/store_owner"]; p["reference"] != "TRX-9" || p["netAmount"] != "995.00" {
		t.Errorf("payout_completed %v", p)
	}
	if p := byType["payout_failed/store_owner"]; p["balanceRestored"] != "true" || p["reason"] != "Account closed" {
		t.Errorf("payout_failed %v", p)
	}
}

// The owner hears of a change of the payout account at once: high priority,
// the account's last digits and the time in Dubai; a change an administrator
// made says so.
func TestBankAccountChangedNotice(t *testing.T) {
	ns, err := For(Event{ID: "evt", Type: EventBankAccountChanged, Time: sampleTime, Data: json.RawMessage(bankAccountChanged)})
	if err != nil || len(ns) != 1 {
		t.Fatalf("%v %+v", err, ns)
	}
	n := ns[0]
	if n.RecipientType != RecipientUser || n.RecipientUserID != "u_owner" || n.Priority != PriorityHigh || n.Type != TypeBankAccountChanged ||
		n.Data["walletId"] != "wal_1" || n.Data["storeId"] != "sto_1" {
		t.Errorf("%+v", n)
	}
	// 1795975200000 is 2026-11-29 18:00 UTC: 22:00 in Dubai.
	if want := "The bank account your payouts are paid to was changed to the account ending 4321 on 29 Nov 2026 at 22:00 (Dubai time). If you did not make or ask for this change, contact us at once: payouts go to the new account."; n.Body != want {
		t.Errorf("body %q", n.Body)
	}
	ns, _ = For(Event{ID: "evt", Type: EventBankAccountChanged, Time: sampleTime,
		Data: json.RawMessage(`{"walletId":"wal_1","ownerUserId":"u_owner","ibanLast4":"4321","changedBy":"admin-1"}`)})
	if len(ns) != 1 || ns[0].Params["byOwner"] != "false" || ns[0].Params["changedAt"] != "1795975500000" ||
		!slices.Contains([]string{ns[0].Body}, "The bank account your payouts are paid to was changed to the account ending 4321 on 29 Nov 2026 at 22:05 (Dubai time) by an administrator. If you did not make or ask for this change, contact us at once: payouts go to the new account.") {
		t.Errorf("by an administrator, without eventTime: %+v", ns)
	}
	if _, err := For(Event{ID: "evt", Type: EventBankAccountChanged, Data: json.RawMessage(`{"ownerUserId":"u_owner"}`)}); err == nil {
		t.Error("no walletId: accepted")
	}
	if ns, err := For(Event{ID: "evt", Type: EventBankAccountChanged, Data: json.RawMessage(`{"walletId":"wal_1"}`)}); err != nil || len(ns) != 0 {
		t.Errorf("no owner: %v %+v", err, ns)
	}
}
