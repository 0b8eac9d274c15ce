package storage

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
)

// A statement read newest first hands a cursor that oldest first refuses
// (it would go on with the entries after it as "page 2"), as does a kind
// filter added or dropped; newest first goes on from it (docs/adr/0172).
func TestStatementCursorIsOfItsDirectionAndFilters(t *testing.T) {
	ctx := context.Background()
	db := memoryDB(t)
	st := New(db).Statement
	for i := 1; i <= 10; i++ {
		e := domain.StatementEntry{ID: fmt.Sprintf("e%02d", i), WalletID: "w1", Seq: int64(i), At: int64(i * 1000), Kind: "credit"}
		if _, err := db.Collection(StatementColl).InsertOne(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	first, err := st.Page(ctx, "w1", EntryFilter{}, true, page.Opts{NumItems: 4})
	if err != nil || len(first.Page) != 4 || first.Page[3].Seq != 7 {
		t.Fatalf("first page: %+v %v", first, err)
	}
	cur := first.ContinueCursor
	kind := "credit"
	for name, f := range map[string]func() error{
		"oldest first": func() error {
			_, err := st.Page(ctx, "w1", EntryFilter{}, false, page.Opts{NumItems: 4, Cursor: &cur})
			return err
		},
		"a kind": func() error {
			_, err := st.Page(ctx, "w1", EntryFilter{Kind: &kind}, true, page.Opts{NumItems: 4, Cursor: &cur})
			return err
		},
	} {
		if err := f(); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("%s took the cursor of newest first: %v", name, err)
		}
	}
	next, err := st.Page(ctx, "w1", EntryFilter{}, true, page.Opts{NumItems: 4, Cursor: &cur})
	if err != nil || next.Page[0].Seq != 6 {
		t.Fatalf("next page: %+v %v", next, err)
	}
}

// The owner's payouts were paged newest first by creationTime; they are by
// requestDate, the same time (domain.NewPayout): a cursor of the previous
// release goes on in the default order and is refused by any other.
func TestOwnersPayoutsReadThePreviousReleasesCursor(t *testing.T) {
	ctx := context.Background()
	db := memoryDB(t)
	payouts := New(db).Payouts
	for i := 1; i <= 6; i++ {
		now := int64(i * 1000)
		p, _ := domain.NewPayout(domain.PayoutRequest{ID: fmt.Sprintf("p%d", i), StoreID: "s1"}, &domain.WalletSettings{}, now)
		if err := payouts.Insert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// The previous release's Payouts.Page cursor after p4 (field, value, id).
	b, _ := bson.Marshal(bson.D{{Key: "f", Value: "creationTime"}, {Key: "v", Value: int64(4000)}, {Key: "i", Value: "p4"}})
	old := base64.RawURLEncoding.EncodeToString(b)
	store := "s1"
	own := PayoutFilter{StoreID: &store, OwnStore: true}
	r, err := payouts.ListPayouts(ctx, own, "requestDate", true, page.Opts{NumItems: 10, Cursor: &old})
	if err != nil || len(r.Page) != 3 || r.Page[0].ID != "p3" || !r.IsDone {
		t.Fatalf("old cursor, newest first: %+v %v", r, err)
	}
	status := domain.StatusRequested
	for name, f := range map[string]PayoutFilter{"oldest": own, "a status": {StoreID: &store, OwnStore: true, Status: &status}} {
		desc := name != "oldest"
		if _, err := payouts.ListPayouts(ctx, f, "requestDate", desc, page.Opts{NumItems: 10, Cursor: &old}); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("%s took the old cursor: %v", name, err)
		}
	}
	// An administrator's store filter is a choice: its cursor is not the unfiltered list's.
	a, err := payouts.ListPayouts(ctx, PayoutFilter{StoreID: &store}, "requestDate", true, page.Opts{NumItems: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := payouts.ListPayouts(ctx, PayoutFilter{}, "requestDate", true, page.Opts{NumItems: 2, Cursor: &a.ContinueCursor}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("the store filter's cursor taken without it: %v", err)
	}
}
