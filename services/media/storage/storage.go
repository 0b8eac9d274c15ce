// Package storage holds the media service's repositories: the only code that
// knows its collections, filters, updates and indexes. Uploads (collection
// uploads: one document per storage id), Totals (collection usage: the bytes
// of every upload kept or reserved, and the GridFS adoption's record),
// Accounts (establishedAccounts), Legacy (the GridFS bucket "images" of
// earlier versions), and the blob stores that hold the bytes (blobs.go).
//
// Rules two concurrent uploads could both pass stay held here by
// conditional single-document writes: the total cap (an $inc of the total
// only while it stays within domain.CapLimit), a stored upload only over its
// pending document, a sweep's delete only while the upload is still
// abandoned (a claim racing the sweep wins), a claim only of an unclaimed
// upload. The rules themselves are the domain's.
package storage

import (
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
)

// Collections of the media service's database (docs/adr/0048-media-blob-storage.md).
const (
	uploadsColl = "uploads"
	usageColl   = "usage"
	// usageID is the usage document with the bytes of every upload kept or
	// reserved.
	usageID = "stored"
	// adoptedID is the usage document that records the adoption of the
	// GridFS bucket's files when GridFS stays the blob store.
	adoptedID = "gridfsAdopted"
	// establishedColl holds the accounts known to have an order or a review.
	establishedColl = "establishedAccounts"
)

// Indexes are the indexes the repositories' queries need.
func Indexes() []store.Index {
	return []store.Index{
		// A user's uploads of the last 24 hours (the daily quota).
		{Collection: uploadsColl, Keys: bson.D{{Key: "uploadedBy", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_by_user"},
		// The sweeper's two queries: unclaimed, and pending, oldest first.
		{Collection: uploadsColl, Keys: bson.D{{Key: "referenced", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_unreferenced"},
		{Collection: uploadsColl, Keys: bson.D{{Key: "state", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_by_state"},
	}
}
