package domain

import (
	"reflect"
	"strings"

	"marketplace/libs/apperr"
)

// Store tiers; the commission rules key on them too (the contract's
// values).
const (
	TierBasic      = "basic"
	TierPremium    = "premium"
	TierEnterprise = "enterprise"
)

// Store is a merchant on the marketplace, as stored.
// Stores created before locations existed have no city, area, coordinates,
// isOpen (read as open), nameKey or version (read as 1).
type Store struct {
	ID                string   `bson:"_id"`
	Name              string   `bson:"name"`
	NameKey           string   `bson:"nameKey,omitempty"`
	OwnerUserID       string   `bson:"ownerUserId"`
	OwnerName         string   `bson:"ownerName"`
	OwnerPhone        string   `bson:"ownerPhone"`
	PrimaryCategoryID *string  `bson:"primaryCategoryId"`
	Tier              string   `bson:"tier"`
	IsActive          bool     `bson:"isActive"`
	IsOpen            *bool    `bson:"isOpen,omitempty"`
	City              *string  `bson:"city,omitempty"`
	Area              *string  `bson:"area,omitempty"`
	Latitude          *float64 `bson:"latitude,omitempty"`
	Longitude         *float64 `bson:"longitude,omitempty"`
	CreationTime      int64    `bson:"creationTime"`
	UpdatedAt         int64    `bson:"updatedAt,omitempty"`
	Version           int64    `bson:"version,omitempty"`
}

// Open reports whether the store takes orders (stores from before the flag: yes).
func (st *Store) Open() bool { return st.IsOpen == nil || *st.IsOpen }

// StoreVersion is the store's version (stores from before versions: 1).
func (st *Store) StoreVersion() int64 { return max(st.Version, 1) }

// ContactVisibleTo says whether the owner's name and phone are shown to a
// caller (sub: the caller's subject, "" for none): only to the owner and to
// administrators.
func (st *Store) ContactVisibleTo(sub string, admin bool) bool {
	return sub != "" && (sub == st.OwnerUserID || admin)
}

// StoreFields are a store's fields as an administrator gives them (on
// creation: nil is the default; on a change: nil is unchanged).
type StoreFields struct {
	Name, OwnerUserID, OwnerName, OwnerPhone *string
	PrimaryCategoryID, Tier, City, Area      *string
	Latitude, Longitude                      *float64
	IsOpen                                   *bool
}

// NewStore is a new store: basic tier, active, open unless said, version 1;
// its fields must hold together (CheckFields). Its references (category,
// city, area) are checked by the caller (Refs).
func NewStore(id string, f StoreFields, now int64) (Store, error) {
	st := Store{ID: id, Tier: TierBasic, IsActive: true, CreationTime: now, Version: 1}
	open := true
	st.IsOpen = &open
	st.apply(f)
	st.NameKey = NameKey(st.Name)
	return st, st.CheckFields()
}

// setText sets *dst to v, trimmed, when v is given.
func setText(dst *string, v *string) {
	if v != nil {
		*dst = strings.TrimSpace(*v)
	}
}

// setPtr sets *dst to v when v is given.
func setPtr[T any](dst **T, v *T) {
	if v != nil {
		c := *v
		*dst = &c
	}
}

func (st *Store) apply(f StoreFields) {
	setText(&st.Name, f.Name)
	setText(&st.OwnerUserID, f.OwnerUserID)
	setText(&st.OwnerName, f.OwnerName)
	setText(&st.OwnerPhone, f.OwnerPhone)
	setPtr(&st.PrimaryCategoryID, f.PrimaryCategoryID)
	if f.Tier != nil {
		st.Tier = *f.Tier
	}
	setPtr(&st.City, f.City)
	setPtr(&st.Area, f.Area)
	setPtr(&st.Latitude, f.Latitude)
	setPtr(&st.Longitude, f.Longitude)
	setPtr(&st.IsOpen, f.IsOpen)
}

// AdminChange is an administrator's change of any of the store's fields;
// a new ownerUserId hands the store over to another user.
func (st *Store) AdminChange(f StoreFields) { st.apply(f) }

// OwnerChange is the owner's change of their store's name, phone and open
// flag: refused (PERMISSION_DENIED) to anyone but the store's owner as the
// change reads the store, so a store handed over meanwhile is refused to
// its former owner.
func (st *Store) OwnerChange(caller string, name, ownerPhone *string, isOpen *bool) error {
	if caller == "" || st.OwnerUserID != caller {
		return apperr.New(apperr.PermissionDenied, "stores.catalog.updateMyStore is for the store's owner")
	}
	st.apply(StoreFields{Name: name, OwnerPhone: ownerPhone, IsOpen: isOpen})
	return nil
}

// CheckFields holds the rules between a store's own fields: coordinates
// come in pairs, and an area needs the city it lies in.
func (st *Store) CheckFields() error {
	switch {
	case st.Latitude != nil && st.Longitude == nil:
		return apperr.Invalid("longitude", "is required with latitude: a store's position is both")
	case st.Latitude == nil && st.Longitude != nil:
		return apperr.Invalid("latitude", "is required with longitude: a store's position is both")
	case st.Area != nil && st.City == nil:
		return apperr.Invalid("area", "needs the store's city: give city too")
	}
	return nil
}

// Settle finishes a change of before into st at now: the name key follows
// the name, the fields must hold together, and a change that alters
// something is a new version (a store from before the open flag is written
// open, as it reads). changed false: nothing to write or announce.
func (st *Store) Settle(before *Store, now int64) (changed bool, err error) {
	st.NameKey = NameKey(st.Name)
	if err := st.CheckFields(); err != nil {
		return false, err
	}
	if reflect.DeepEqual(st, before) {
		return false, nil
	}
	if st.IsOpen == nil {
		open := true
		st.IsOpen = &open
	}
	st.Version, st.UpdatedAt = before.StoreVersion()+1, now
	return true, nil
}

// Refs are the references of a store to check against the records they
// name, each "" when it need not be checked.
type Refs struct{ Category, City, Area string }

// RefsToCheck are the references of st that a change from before (nil on
// creation) set or changed: what did not change is not checked again (a
// store keeps working whatever happened to its references since). An area
// is checked again when its city changed (it must lie in it).
func (st *Store) RefsToCheck(before *Store) Refs {
	changed := func(a, b func(*Store) *string) bool { return before == nil || !reflect.DeepEqual(a(st), b(before)) }
	cat := func(s *Store) *string { return s.PrimaryCategoryID }
	city := func(s *Store) *string { return s.City }
	area := func(s *Store) *string { return s.Area }
	var r Refs
	if st.PrimaryCategoryID != nil && changed(cat, cat) {
		r.Category = *st.PrimaryCategoryID
	}
	if st.City != nil && changed(city, city) {
		r.City = *st.City
	}
	if st.Area != nil && (changed(area, area) || changed(city, city)) {
		r.Area = *st.Area
	}
	return r
}
