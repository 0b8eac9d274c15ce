package domain

// BankAccount is a store's saved payout bank account (record kind
// payoutAccounts, id: the wallet's; docs/adr/0162). SavedBy is the user who
// saved it: always the store's owner at the time.
type BankAccount struct {
	ID                string `bson:"_id"`
	StoreID           string `bson:"storeId"`
	IBAN              string `bson:"iban"`
	BankName          string `bson:"bankName"`
	AccountHolderName string `bson:"accountHolderName"`
	SavedBy           string `bson:"savedBy"`
	UpdatedAt         int64  `bson:"updatedAt"`
}

// OfferedTo reports whether the saved account may be offered to ownerNow,
// the store's owner now: only when that owner saved it. After a handover
// the former owner's account is never offered to the new owner (nor paid
// to: docs/adr/0065), and goes unused until the new owner saves their own.
func (a *BankAccount) OfferedTo(ownerNow string) bool {
	return a != nil && ownerNow != "" && a.SavedBy == ownerNow
}

// IBANLast4 is the last four characters of a (normalised) IBAN: all an
// event or a list shows of it.
func IBANLast4(iban string) string {
	if len(iban) <= 4 {
		return iban
	}
	return iban[len(iban)-4:]
}
