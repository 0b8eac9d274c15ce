package domain

import (
	"testing"

	"marketplace/libs/money"
)

// TestAdjustmentNamesItsAdministrator: an adjustment records the
// administrator's name beside the id (docs/adr/0168) on its journal entry,
// its wallet transaction's metadata and its wallet.adjusted event; without
// a name none of them carries one (older records, unnamed tokens).
func TestAdjustmentNamesItsAdministrator(t *testing.T) {
	w := &Wallet{ID: "wal_1", StoreID: "sto_1", OwnerUserID: "owner-1"}
	req := AdjustmentRequest{ID: "adj_1", WalletID: w.ID, StoreID: w.StoreID, Kind: "add_balance", Reason: "Goodwill",
		AdminUserID: "admin-1", AdminName: "Mariam Al Mansoori", Amount: money.Fils(2550)}
	a := NewAdjustment(req, 1000)
	if a.AdminUserID != "admin-1" || a.AdminName != "Mariam Al Mansoori" {
		t.Errorf("the journal entry: %+v", a)
	}
	if by := a.Adjuster(); by != (Adjuster{ID: "admin-1", Name: "Mariam Al Mansoori"}) {
		t.Errorf("the journal entry's adjuster: %+v", by)
	}
	tx := a.Transaction("wtx_1", TxBonus, 1000)
	if tx.Metadata["adminUserId"] != "admin-1" || tx.Metadata[MetaAdminName] != "Mariam Al Mansoori" {
		t.Errorf("the transaction's metadata: %v", tx.Metadata)
	}
	if by := AdjusterOf(tx); by != (Adjuster{ID: "admin-1", Name: "Mariam Al Mansoori"}) {
		t.Errorf("the transaction's adjuster: %+v", by)
	}
	a.TransactionID = tx.ID
	if e := a.AdjustedEvent(w, TxBonus); e.AdminUserID != "admin-1" || e.AdminName != "Mariam Al Mansoori" {
		t.Errorf("the event: %+v", e)
	}

	req.AdminName = ""
	a = NewAdjustment(req, 1000)
	tx = a.Transaction("wtx_2", TxBonus, 1000)
	if _, ok := tx.Metadata[MetaAdminName]; ok || a.AdminName != "" {
		t.Errorf("an unnamed administrator named: %+v %v", a, tx.Metadata)
	}
	if by := AdjusterOf(tx); by != (Adjuster{ID: "admin-1"}) {
		t.Errorf("an unnamed adjuster: %+v", by)
	}
	if e := a.AdjustedEvent(w, TxBonus); e.AdminUserID != "admin-1" || e.AdminName != "" {
		t.Errorf("the unnamed event: %+v", e)
	}
}
