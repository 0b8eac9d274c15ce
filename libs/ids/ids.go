// Package ids makes and checks the platform's opaque record ids. An id is a short
// kind prefix, an underscore and 24 hex digits: 96 random bits. Ids say nothing
// of when a record was made nor of how many were made around it (an ObjectID's
// time and counter let neighbouring ids reveal the marketplace's volume and be
// guessed), so nothing may sort by id to mean creation order: lists sort by a
// creation time field, with the id only breaking ties. The prefix lets a
// service tell a malformed id, or an id of the wrong kind (an area id given as
// a city), from a missing record.
package ids

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// prefixes maps the interface document's record kinds (Id<'kind'>) to id prefixes.
var prefixes = map[string]string{
	"cities":                "cty",
	"areas":                 "ara",
	"categories":            "cat",
	"stores":                "sto",
	"products":              "prd",
	"platformConfig":        "pcf",
	"platformConfigChanges": "pch",
	"customers":             "cus",
	"customerAddresses":     "adr",
	"carts":                 "crt",
	"orders":                "ord",
	"refunds":               "rfd",
	"storeReviews":          "rev",
	"reviewFlags":           "flg",
	"payouts":               "pay",
	"storeWallets":          "wal",
	"walletTransactions":    "wtx",
	"walletAdjustments":     "adj",
	"notifications":         "ntf",
	"_storage":              "stg",
}

// Known reports whether kind is a record kind with ids.
func Known(kind string) bool { _, ok := prefixes[kind]; return ok }

// Prefix is the id prefix of kind (ids of it are "<prefix>_" and 24 hex
// digits), for schemas that describe ids.
func Prefix(kind string) (string, bool) { p, ok := prefixes[kind]; return p, ok }

// New returns a fresh id of kind: 96 random bits, unguessable and unordered.
// It panics on an unknown kind: that is a programming error caught by every
// test that creates a record.
func New(kind string) string {
	p, ok := prefixes[kind]
	if !ok {
		panic("ids: unknown kind " + kind)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("ids: no randomness: " + err.Error())
	}
	return p + "_" + hex.EncodeToString(b[:])
}

// NewUnguessable is New: every id is random now (it remains for the records
// that were made unguessable first, such as photos).
func NewUnguessable(kind string) string { return New(kind) }

// Valid reports whether id is a well-formed id of kind.
func Valid(kind, id string) bool {
	p, ok := prefixes[kind]
	if !ok || len(id) != len(p)+1+24 || !strings.HasPrefix(id, p+"_") {
		return false
	}
	_, err := hex.DecodeString(id[len(p)+1:])
	return err == nil
}
