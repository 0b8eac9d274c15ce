package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
)

// Sizer reports how many documents each collection of a database holds: the
// metrics of the embedded engine's collection sizes read it (every find
// scans a collection there, so its size is what a request costs).
type Sizer interface {
	CollectionSizes(ctx context.Context) (map[string]int64, error)
}

var _ Sizer = (*DB)(nil)

// CollectionSizes counts the documents of every collection. On the embedded
// engine the counts are exact and cost a read of the catalog; on MongoDB they
// are the server's estimates (collection metadata, no scan).
func (d *DB) CollectionSizes(ctx context.Context) (map[string]int64, error) {
	names, err := d.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("store: list collections: %w", err)
	}
	sizes := make(map[string]int64, len(names))
	for _, name := range names {
		n, err := d.Collection(name).EstimatedDocumentCount(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: count %s: %w", name, err)
		}
		sizes[name] = n
	}
	return sizes, nil
}
