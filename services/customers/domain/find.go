package domain

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
)

// Who moved an order (StatusChange.Role).
const (
	RoleCustomer      = "customer"
	RoleStore         = "store"
	RoleAdministrator = "administrator"
	RoleSystem        = "system"
	// BySystemPayments is the By of the first entry of every paid order: the
	// payment made it.
	BySystemPayments = "payments"
)

// OrderNumberLength is the length of an order's number.
const OrderNumberLength = 6

// OrderNumber is an order's short number: the last six hexadecimal digits of
// its id, upper case (what the console shows after '#'). Numbers are not
// unique (24 bits): a search by number answers every order that has it.
func OrderNumber(id string) string {
	if len(id) < OrderNumberLength {
		return strings.ToUpper(id)
	}
	return strings.ToUpper(id[len(id)-OrderNumberLength:])
}

// ParseOrderNumber reads an order number as a person types it ("#a1b2c3",
// "A1B2C3", with spaces around); anything else is INVALID_ARGUMENT naming field.
func ParseOrderNumber(field, s string) (string, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) != OrderNumberLength {
		return "", apperr.Invalid(field, "is not an order number (six hexadecimal digits, optionally after #)")
	}
	if _, err := hex.DecodeString(s); err != nil {
		return "", apperr.Invalid(field, "is not an order number (six hexadecimal digits, optionally after #)")
	}
	return strings.ToUpper(s), nil
}

// RoleOf is who made a change of the order's history: as recorded, or, for
// entries older than the record, from who By is (the payment, the order's
// customer, the store's owner when the order was made; anyone else moving an
// order is an administrator).
func (o *Order) RoleOf(c StatusChange) string {
	switch {
	case c.Role != "":
		return c.Role
	case c.By == BySystemPayments || c.By == "":
		return RoleSystem
	case c.By == o.CustomerUserID:
		return RoleCustomer
	case c.By == o.StoreOwnerUserID:
		return RoleStore
	}
	return RoleAdministrator
}

// Sorts of an order listing.
const (
	SortNewest    = "newest"
	SortOldest    = "oldest"
	SortTotalDesc = "total_desc"
	SortTotalAsc  = "total_asc"
)

// OrderSort is how a listing is ordered: a field (creationTime or total, the
// id breaking ties in the same direction) and a direction. Tag marks its
// cursors, so that a cursor of one sort is refused by another (newest has
// none: its cursors are those listStoreOrders always gave).
type OrderSort struct {
	Field string
	Desc  bool
	Tag   string
}

// SortOf is the sort named (nil: newest); the argument's enum admits only
// the four.
func SortOf(name *string) OrderSort {
	if name == nil {
		return OrderSort{Field: "creationTime", Desc: true}
	}
	switch *name {
	case SortOldest:
		return OrderSort{Field: "creationTime", Tag: "o"}
	case SortTotalDesc:
		return OrderSort{Field: "total", Desc: true, Tag: "td"}
	case SortTotalAsc:
		return OrderSort{Field: "total", Tag: "ta"}
	}
	return OrderSort{Field: "creationTime", Desc: true}
}

// OrderFilter is what an order listing, count or export selects. Empty
// strings and nil bounds select any; From and To are creation times in
// epoch milliseconds, both inclusive.
type OrderFilter struct {
	StoreID    string
	Status     string
	From, To   *int64
	Number     string // an OrderNumber
	CustomerID string
	// WithHeld: orders whose payment is held for review too (administrators);
	// a store never sees them (Order.VisibleToStore).
	WithHeld bool
}

// NewOrderFilter checks a filter as clients send it: number read by
// ParseOrderNumber, a period whose end is not before its start.
func NewOrderFilter(storeID, status, customerID *string, from, to *int64, number *string, withHeld bool) (OrderFilter, error) {
	f := OrderFilter{From: from, To: to, WithHeld: withHeld}
	if storeID != nil {
		f.StoreID = *storeID
	}
	if status != nil {
		f.Status = *status
	}
	if customerID != nil {
		f.CustomerID = *customerID
	}
	if number != nil {
		n, err := ParseOrderNumber("number", *number)
		if err != nil {
			return OrderFilter{}, err
		}
		f.Number = n
	}
	if from != nil && to != nil && *to < *from {
		return OrderFilter{}, apperr.Invalid("to", "is before from")
	}
	return f, nil
}

// Matches reports whether the filter selects the order (the storage's query
// selects the same).
func (f OrderFilter) Matches(o *Order) bool {
	return (f.StoreID == "" || o.StoreID == f.StoreID) && (f.Status == "" || o.Status == f.Status) &&
		(f.From == nil || o.CreationTime >= *f.From) && (f.To == nil || o.CreationTime <= *f.To) &&
		(f.Number == "" || OrderNumber(o.ID) == f.Number) && (f.CustomerID == "" || o.CustomerID == f.CustomerID) &&
		(f.WithHeld || o.VisibleToStore())
}

// CheckSort refuses a sort by total with any filter but the store: the
// index by_store_total {storeId, total, _id} serves a store's orders by
// total, and with a period, a status, a number or a customer the listing
// would walk the store's whole index for the few that match (INVALID_ARGUMENT
// on sort, details.reason sort_with_filter, details.filters naming them).
func (f OrderFilter) CheckSort(s OrderSort) error {
	if s.Field != "total" {
		return nil
	}
	var with []string
	if f.From != nil || f.To != nil {
		with = append(with, "from/to")
	}
	for _, c := range []struct{ name, v string }{{"status", f.Status}, {"number", f.Number}, {"customerId", f.CustomerID}} {
		if c.v != "" {
			with = append(with, c.name)
		}
	}
	if len(with) == 0 {
		return nil
	}
	return apperr.Invalid("sort", "a sort by total goes with storeId only, not with %s: filter with newest or oldest", strings.Join(with, ", ")).
		WithDetails(map[string]any{"field": "sort", "reason": "sort_with_filter", "filters": with})
}

// Limits of the counts and exports of orders.
const (
	// MaxCount bounds a count of orders: beyond, the count says capped.
	MaxCount = 10_000
	// MaxExportRows bounds an export's rows, checked before its first byte
	// (the period's bound is libs/httpserver's, as every export's).
	MaxExportRows = 100_000
)

// Count is a count of orders, capped at MaxCount.
type Count struct {
	Count  int  `json:"count"`
	Capped bool `json:"capped"` // more than MaxCount match; Count is MaxCount
}

// CountOf is n counted up to limit (n is at most limit+1: the storage counts
// one beyond to know).
func CountOf(n, limit int64) Count {
	if n > limit {
		return Count{Count: int(limit), Capped: true}
	}
	return Count{Count: int(n)}
}

// NameKey is the key a name is found by (a prefix of it): lower case, runs
// of spaces as one.
func NameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// PrefixRange is the range of keys that start with prefix: [prefix, end).
func PrefixRange(prefix string) (string, string) {
	return prefix, prefix + string(utf8.MaxRune)
}

// Customer searches.
const (
	MinSearchLength = 2
	MaxSearchLength = 100
	MaxSearchHits   = 20
)

// CustomerQuery is what a search of customers looks for: a profile id, an
// email, or else a name prefix, a user id and a phone, all exactly as typed
// (trimmed) but the name, found by its NameKey's prefix.
type CustomerQuery struct {
	ProfileID                 string
	Email                     string
	NamePrefix, UserID, Phone string
}

// NewCustomerQuery reads a search: MinSearchLength to MaxSearchLength
// characters once trimmed, else INVALID_ARGUMENT naming query.
func NewCustomerQuery(q string) (CustomerQuery, error) {
	q = strings.TrimSpace(q)
	if n := utf8.RuneCountInString(q); n < MinSearchLength || n > MaxSearchLength {
		return CustomerQuery{}, apperr.Invalid("query", "must be %d to %d characters", MinSearchLength, MaxSearchLength)
	}
	switch {
	case ids.Valid("customers", q):
		return CustomerQuery{ProfileID: q}, nil
	case strings.Contains(q, "@"):
		return CustomerQuery{Email: q}, nil
	}
	out := CustomerQuery{NamePrefix: NameKey(q), UserID: q}
	if looksLikePhone(q) {
		out.Phone = q
	}
	return out, nil
}

// looksLikePhone: digits, at least five, with only + ( ) - . and spaces beside.
func looksLikePhone(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune("+()-. ", r):
		default:
			return false
		}
	}
	return digits >= 5
}
