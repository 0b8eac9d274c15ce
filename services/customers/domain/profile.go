// Package domain holds the customers service's bounded context: the customer
// profile, the cart, checkout pricing and the order with its status machine.
// Every rule is a method or a pure function here, tested without a database;
// the storage package keeps these values, the service's operations call both.
package domain

import (
	"net/mail"
	"strings"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
)

// Profile is a customer profile as stored; clients and other services see
// View, the contract's shape.
type Profile struct {
	ID           string  `bson:"_id"`
	UserID       string  `bson:"userId"`
	Name         string  `bson:"name"`
	NameKey      string  `bson:"nameKey,omitempty"` // NameKey(Name): what a search's prefix matches
	Phone        *string `bson:"phone,omitempty"`
	Email        *string `bson:"email,omitempty"`
	CreationTime int64   `bson:"creationTime"`
	UpdatedAt    int64   `bson:"updatedAt"`
}

// View is the profile in the contract's shape.
func (p *Profile) View() contract.Profile {
	return contract.Profile{ID: p.ID, UserID: p.UserID, Name: p.Name, Phone: p.Phone, Email: p.Email, CreationTime: p.CreationTime, UpdatedAt: p.UpdatedAt}
}

// DeliveryPhone is the phone a delivery uses, or "" when the profile has none
// (blank counts as none).
func (p *Profile) DeliveryPhone() string {
	if p.Phone == nil {
		return ""
	}
	return strings.TrimSpace(*p.Phone)
}

// ProfileEdit is what upsertMyProfile writes: the name, and the phone and
// email when given, trimmed. Fields left nil keep their stored value.
type ProfileEdit struct {
	Name  string
	Phone *string
	Email *string
}

// NewProfileEdit checks and trims an edit of a profile: an email must be one
// address and nothing else (INVALID_ARGUMENT naming email).
func NewProfileEdit(name string, phone, email *string) (ProfileEdit, error) {
	if email != nil {
		if addr, err := mail.ParseAddress(*email); err != nil || addr.Address != strings.TrimSpace(*email) {
			return ProfileEdit{}, apperr.Invalid("email", "is not an email address")
		}
	}
	e := ProfileEdit{Name: strings.TrimSpace(name)}
	if phone != nil {
		v := strings.TrimSpace(*phone)
		e.Phone = &v
	}
	if email != nil {
		v := strings.TrimSpace(*email)
		e.Email = &v
	}
	return e, nil
}
