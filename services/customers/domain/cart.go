package domain

import (
	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// Limits of a cart.
const (
	MaxQuantity  = 99  // of one product
	MaxCartLines = 100 // distinct products
)

// CartItem is one line of a cart. Name and price are copied from the catalog
// when the line is added (never from the client) and refreshed when it is
// added again.
type CartItem struct {
	ID           string     `bson:"_id"`
	CustomerID   string     `bson:"customerId"`
	ProductID    string     `bson:"productId"`
	StoreID      string     `bson:"storeId"`
	Name         string     `bson:"name"`
	UnitPrice    money.Fils `bson:"unitPrice"`
	Quantity     int        `bson:"quantity"`
	CreationTime int64      `bson:"creationTime"`
}

// CanTake reports whether a line already holding have may take add more:
// a line never holds more than MaxQuantity of its product. The storage's
// conditional update holds the same bound against concurrent adds
// (quantity <= MaxQuantity-add).
func CanTake(have, add int) bool { return have+add <= MaxQuantity }

// TooMany is the refusal of an add that would pass MaxQuantity.
func TooMany() error {
	return apperr.New(apperr.FailedPrecondition, "a cart holds at most %d of one product", MaxQuantity)
}

// CheckNewLine refuses a first add of a product to a cart holding lines
// distinct products already: a cart holds at most MaxCartLines.
func CheckNewLine(lines int64) error {
	if lines >= MaxCartLines {
		return apperr.New(apperr.FailedPrecondition, "a cart holds at most %d different products", MaxCartLines)
	}
	return nil
}

// Available is what the catalog says of a product being added.
type Available struct {
	ProductID   string
	Exists      bool
	IsAvailable bool
}

// CheckAddable refuses adding a product the catalog does not have (NOT_FOUND)
// or does not sell now (FAILED_PRECONDITION).
func CheckAddable(a Available) error {
	if !a.Exists {
		return apperr.New(apperr.NotFound, "product %s does not exist", a.ProductID)
	}
	if !a.IsAvailable {
		return apperr.New(apperr.FailedPrecondition, "product %s is not available", a.ProductID)
	}
	return nil
}

// CheckRemovable: a customer removes only lines of their own cart.
func (l *CartItem) CheckRemovable(customerID string) error {
	if l.CustomerID != customerID {
		return apperr.New(apperr.PermissionDenied, "cart item %s is in another customer's cart", l.ID)
	}
	return nil
}

// CartItemView is a cart line as clients see it.
type CartItemView struct {
	ID        string  `json:"_id"`
	ProductID string  `json:"productId"`
	StoreID   string  `json:"storeId"`
	Name      string  `json:"name"`
	UnitPrice float64 `json:"unitPrice"`
	Quantity  int     `json:"quantity"`
}

// Cart is getMyCart's answer.
type Cart struct {
	Items    []CartItemView `json:"items"`
	Subtotal float64        `json:"subtotal"`
}

// CartOf is the cart holding lines, with their subtotal (exact in fils).
func CartOf(lines []CartItem) *Cart {
	cart := &Cart{Items: []CartItemView{}}
	var subtotal money.Fils
	for _, l := range lines {
		cart.Items = append(cart.Items, CartItemView{ID: l.ID, ProductID: l.ProductID, StoreID: l.StoreID, Name: l.Name, UnitPrice: l.UnitPrice.AED(), Quantity: l.Quantity})
		subtotal += l.UnitPrice * money.Fils(l.Quantity)
	}
	cart.Subtotal = subtotal.AED()
	return cart
}

// SameLines reports whether two reads of a cart's lines agree on every line,
// its quantity and its price: the order made from a payment is made only from
// the lines as they were priced.
func SameLines(a, b []CartItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Quantity != b[i].Quantity || a[i].UnitPrice != b[i].UnitPrice {
			return false
		}
	}
	return true
}
