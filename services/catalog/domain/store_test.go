package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func ptr[T any](v T) *T { return &v }

func wantCode(t *testing.T, err error, code apperr.Code, msg string) {
	t.Helper()
	e := apperr.From(err)
	if e == nil || e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("error %v, want %s %q", err, code, msg)
	}
}

func TestNewStoreDefaultsAndTrims(t *testing.T) {
	st, err := NewStore("sto_1", StoreFields{Name: ptr("  Corner  Shop "), OwnerUserID: ptr(" user_1 "), OwnerName: ptr(" Ali "), OwnerPhone: ptr(" +971 ")}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "Corner  Shop" || st.NameKey != "corner shop" || st.OwnerUserID != "user_1" || st.OwnerName != "Ali" || st.OwnerPhone != "+971" ||
		st.Tier != TierBasic || !st.IsActive || st.IsOpen == nil || !*st.IsOpen || st.Version != 1 || st.CreationTime != 5 || st.UpdatedAt != 0 {
		t.Fatalf("%+v", st)
	}
	st, err = NewStore("sto_1", StoreFields{Name: ptr("x"), Tier: ptr(TierPremium), IsOpen: ptr(false)}, 5)
	if err != nil || st.Tier != TierPremium || *st.IsOpen {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestStoreFieldsHoldTogether(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     StoreFields
		field string // "" accepted
	}{
		{"nothing", StoreFields{}, ""},
		{"a position", StoreFields{Latitude: ptr(25.2), Longitude: ptr(55.3)}, ""},
		{"latitude alone", StoreFields{Latitude: ptr(25.2)}, "longitude"},
		{"longitude alone", StoreFields{Longitude: ptr(55.3)}, "latitude"},
		{"city alone", StoreFields{City: ptr("cit_1")}, ""},
		{"city and area", StoreFields{City: ptr("cit_1"), Area: ptr("are_1")}, ""},
		{"area without city", StoreFields{Area: ptr("are_1")}, "area"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			f.Name = ptr("s")
			_, err := NewStore("sto_1", f, 1)
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, apperr.InvalidArgument, "")
			if apperr.From(err).Details["field"] != c.field {
				t.Fatalf("field %v, want %s", apperr.From(err).Details["field"], c.field)
			}
		})
	}
}

func TestOnlyTheOwnerChangesTheirStore(t *testing.T) {
	st := Store{ID: "sto_1", Name: "A", OwnerUserID: "user_1", OwnerPhone: "1", Tier: TierBasic}
	for _, caller := range []string{"", "user_2"} {
		c := st
		wantCode(t, c.OwnerChange(caller, ptr("B"), nil, nil), apperr.PermissionDenied, "stores.catalog.updateMyStore is for the store's owner")
		if c.Name != "A" {
			t.Fatal("a refused change changed the store")
		}
	}
	c := st
	if err := c.OwnerChange("user_1", ptr(" B "), ptr(" 2 "), ptr(false)); err != nil {
		t.Fatal(err)
	}
	if c.Name != "B" || c.OwnerPhone != "2" || c.IsOpen == nil || *c.IsOpen || c.OwnerUserID != "user_1" || c.Tier != TierBasic {
		t.Fatalf("%+v", c)
	}
}

func TestHandoverMovesTheOwnersRights(t *testing.T) {
	// An administrator's change of ownerUserId hands the store over: the new
	// owner may change it, the former owner no longer.
	st := Store{ID: "sto_1", Name: "A", OwnerUserID: "user_1", OwnerName: "Old", OwnerPhone: "1", Version: 3}
	before := st
	st.AdminChange(StoreFields{OwnerUserID: ptr(" user_2 "), OwnerName: ptr("New"), OwnerPhone: ptr("2")})
	changed, err := st.Settle(&before, 9)
	if err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	if st.OwnerUserID != "user_2" || st.OwnerName != "New" || st.Version != 4 || st.UpdatedAt != 9 {
		t.Fatalf("%+v", st)
	}
	wantCode(t, st.OwnerChange("user_1", ptr("mine"), nil, nil), apperr.PermissionDenied, "")
	if err := st.OwnerChange("user_2", ptr("theirs"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if !st.ContactVisibleTo("user_2", false) || st.ContactVisibleTo("user_1", false) {
		t.Fatal("the contact follows the owner")
	}
}

func TestAdminChangeChangesOnlyTheFieldsGiven(t *testing.T) {
	st := Store{ID: "sto_1", Name: "A", OwnerUserID: "user_1", OwnerName: "N", OwnerPhone: "1", PrimaryCategoryID: ptr("cat_1"),
		Tier: TierBasic, City: ptr("cit_1"), Area: ptr("are_1"), Latitude: ptr(1.0), Longitude: ptr(2.0), IsOpen: ptr(true)}
	c := st
	c.AdminChange(StoreFields{Tier: ptr(TierEnterprise), Area: ptr("are_2")})
	if c.Tier != TierEnterprise || *c.Area != "are_2" || c.Name != "A" || *c.City != "cit_1" || *c.PrimaryCategoryID != "cat_1" || *c.Latitude != 1 || !*c.IsOpen {
		t.Fatalf("%+v", c)
	}
	if *st.Area != "are_1" {
		t.Fatal("the change wrote through to the store it was copied from")
	}
}

func TestSettle(t *testing.T) {
	legacy := Store{ID: "sto_1", Name: "Old Name", OwnerUserID: "u"} // no nameKey, isOpen, version
	t.Run("nothing changed: nothing written", func(t *testing.T) {
		st := Store{ID: "sto_1", Name: "A", NameKey: "a", IsOpen: ptr(true), Version: 2}
		before := st
		st.AdminChange(StoreFields{Name: ptr("A")})
		if changed, err := st.Settle(&before, 5); err != nil || changed || st.Version != 2 || st.UpdatedAt != 0 {
			t.Fatalf("changed %v %v %+v", changed, err, st)
		}
	})
	t.Run("a legacy store is written open, version 2, with its name key", func(t *testing.T) {
		st, before := legacy, legacy
		st.AdminChange(StoreFields{OwnerPhone: ptr("1")})
		changed, err := st.Settle(&before, 5)
		if err != nil || !changed || st.IsOpen == nil || !*st.IsOpen || st.Version != 2 || st.NameKey != "old name" || st.UpdatedAt != 5 {
			t.Fatalf("changed %v %v %+v", changed, err, st)
		}
	})
	t.Run("a rename moves the name key", func(t *testing.T) {
		st := Store{ID: "sto_1", Name: "A", NameKey: "a", IsOpen: ptr(true), Version: 1}
		before := st
		st.AdminChange(StoreFields{Name: ptr("The  B")})
		if _, err := st.Settle(&before, 5); err != nil || st.NameKey != "the b" {
			t.Fatalf("%v %+v", err, st)
		}
	})
	t.Run("fields that do not hold together are refused", func(t *testing.T) {
		st := Store{ID: "sto_1", Name: "A", NameKey: "a", Version: 1}
		before := st
		st.AdminChange(StoreFields{Latitude: ptr(3.0)})
		_, err := st.Settle(&before, 5)
		wantCode(t, err, apperr.InvalidArgument, "longitude: is required with latitude: a store's position is both")
	})
}

func TestRefsToCheckAreThoseSetOrChanged(t *testing.T) {
	st := Store{PrimaryCategoryID: ptr("cat_1"), City: ptr("cit_1"), Area: ptr("are_1")}
	if r := st.RefsToCheck(nil); r != (Refs{"cat_1", "cit_1", "are_1"}) {
		t.Fatalf("creation: %+v", r)
	}
	same := st
	if r := st.RefsToCheck(&same); r != (Refs{}) {
		t.Fatalf("unchanged: %+v", r)
	}
	moved := st
	moved.City = ptr("cit_2")
	if r := moved.RefsToCheck(&st); r != (Refs{City: "cit_2", Area: "are_1"}) {
		t.Fatalf("a new city checks the area again: %+v", r)
	}
	recat := st
	recat.PrimaryCategoryID = ptr("cat_2")
	if r := recat.RefsToCheck(&st); r != (Refs{Category: "cat_2"}) {
		t.Fatalf("a new category: %+v", r)
	}
	none := Store{}
	if r := none.RefsToCheck(&st); r != (Refs{}) {
		t.Fatalf("nothing named: %+v", r)
	}
}

func TestAreaInCity(t *testing.T) {
	a := Area{ID: "are_1", City: "cit_1"}
	if err := a.InCity("cit_1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, a.InCity("cit_2"), apperr.InvalidArgument, "area: area are_1 is not in city cit_2")
}

func TestContactVisibleOnlyToTheOwnerAndAdministrators(t *testing.T) {
	st := Store{OwnerUserID: "user_1"}
	for _, c := range []struct {
		sub   string
		admin bool
		want  bool
	}{{"user_1", false, true}, {"adm_1", true, true}, {"user_2", false, false}, {"", false, false}} {
		if got := st.ContactVisibleTo(c.sub, c.admin); got != c.want {
			t.Errorf("%q admin=%v: %v, want %v", c.sub, c.admin, got, c.want)
		}
	}
}

func TestStoreReadsOfLegacyFields(t *testing.T) {
	legacy := Store{}
	if !legacy.Open() || legacy.StoreVersion() != 1 {
		t.Fatal("a store from before the flag and versions reads open, version 1")
	}
	closed := Store{IsOpen: ptr(false), Version: 4}
	if closed.Open() || closed.StoreVersion() != 4 {
		t.Fatal(closed)
	}
}

func TestPlacesRenameAndVersion(t *testing.T) {
	c := NewCity("cit_1", " Dubai ", " دبي ", 3)
	if c.Name != "Dubai" || c.NameKey != "dubai" || c.NameArabic != "دبي" || c.Version != 1 {
		t.Fatalf("%+v", c)
	}
	c.Rename(ptr("New  Dubai"), nil)
	if c.Name != "New  Dubai" || c.NameKey != "new dubai" || c.NameArabic != "دبي" || c.Version != 2 {
		t.Fatalf("%+v", c)
	}
	a := NewArea("are_1", "Marina", "cit_1", 3)
	a.Rename(" JBR ")
	if a.Name != "JBR" || a.NameKey != "jbr" || a.City != "cit_1" || a.Version != 2 {
		t.Fatalf("%+v", a)
	}
	g := NewCategory("cat_1", " Food ", nil, 1)
	if g.Name != "Food" || g.NameKey != "food" || g.NameArabic != "" {
		t.Fatalf("%+v", g)
	}
	if NameKey("  Al   Barsha ") != "al barsha" || NameKey("AL BARSHA") != NameKey("al barsha") {
		t.Fatal("name keys ignore case and spacing")
	}
}
