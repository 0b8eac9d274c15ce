// Package ids makes and checks the platform's opaque record ids. An id is a short
// kind prefix, an underscore and a 24-hex-digit ObjectID (time-ordered, so ids of
// one kind sort by creation). The prefix lets a service tell a malformed id, or an
// id of the wrong kind (an area id given as a city), from a missing record.
package ids

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"
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

// New returns a fresh id of kind. It panics on an unknown kind: that is a
// programming error caught by every test that creates a record.
func New(kind string) string {
	p, ok := prefixes[kind]
	if !ok {
		panic("ids: unknown kind " + kind)
	}
	return p + "_" + primitive.NewObjectID().Hex()
}

// NewUnguessable returns a fresh id of kind made of 96 random bits instead of
// an ObjectID (whose time, process bytes and counter let one id predict its
// neighbours): for records served to anyone who knows the id, such as photos.
// It has the same shape, so Valid accepts it; Time of it means nothing.
func NewUnguessable(kind string) string {
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

// Valid reports whether id is a well-formed id of kind.
func Valid(kind, id string) bool {
	p, ok := prefixes[kind]
	if !ok || len(id) != len(p)+1+24 || !strings.HasPrefix(id, p+"_") {
		return false
	}
	_, err := hex.DecodeString(id[len(p)+1:])
	return err == nil
}

// Time is the creation time embedded in a valid id.
func Time(id string) time.Time {
	i := strings.IndexByte(id, '_')
	if i < 0 {
		return time.Time{}
	}
	oid, err := primitive.ObjectIDFromHex(id[i+1:])
	if err != nil {
		return time.Time{}
	}
	return oid.Timestamp()
}
