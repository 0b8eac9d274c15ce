package domain

import (
	"regexp"
	"strings"

	"marketplace/libs/apperr"
)

// ProductList is a store's products as listProductsPaginated lists them: a
// part of the name (any case), available or not, in an order. A store keeps
// at most MaxProductsPerStore products, so a filter reads at most that many
// of its index range whatever the order.
type ProductList struct {
	Search    string // "" every name
	Available *bool
	Sort      string // added (default: the order they were added), newest, price, price_desc
}

// ProductSorts are listProductsPaginated's orders: the field and its direction.
var ProductSorts = map[string]struct {
	Field string
	Desc  bool
}{
	"added": {"creationTime", false}, "newest": {"creationTime", true},
	"price": {"price", false}, "price_desc": {"price", true},
}

// NewProductList checks the list's arguments (the registry checked sort's
// values): a search is trimmed, at least 2 and at most 100 characters
// (INVALID_ARGUMENT on search).
func NewProductList(search *string, available *bool, sort *string) (ProductList, error) {
	l := ProductList{Available: available, Sort: "added"}
	if sort != nil {
		l.Sort = *sort
	}
	if search != nil {
		q := strings.Join(strings.Fields(*search), " ")
		if n := len([]rune(q)); n > 0 && (n < 2 || n > 100) {
			return ProductList{}, apperr.Invalid("search", "needs 2 to 100 characters")
		}
		l.Search = q
	}
	return l, nil
}

// SearchPattern is the search as a case-insensitive pattern matching the
// text anywhere in a name (its characters taken literally); "" without one.
func (l ProductList) SearchPattern() string {
	if l.Search == "" {
		return ""
	}
	return "(?i)" + regexp.QuoteMeta(l.Search)
}

// Matches says whether p is in the list (the storage's query selects the same).
func (l ProductList) Matches(p *Product) bool {
	if l.Available != nil && p.IsAvailable != *l.Available {
		return false
	}
	return l.Search == "" || strings.Contains(strings.ToLower(strings.Join(strings.Fields(p.Name), " ")), strings.ToLower(l.Search))
}
