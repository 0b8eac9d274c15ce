package storage

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/media/domain"
)

// Uploads is the repository of uploads' metadata (collection uploads) and of
// the total they add up to (collection usage, document stored), which every
// write of an upload changes in the same transaction.
type Uploads struct{ db *store.DB }

// NewUploads is the repository on db.
func NewUploads(db *store.DB) *Uploads { return &Uploads{db: db} }

// Get loads the upload id, in any state; nil when there is none.
func (r *Uploads) Get(ctx context.Context, id string) (*domain.Upload, error) {
	return store.FindOne[domain.Upload](ctx, r.db.Collection(uploadsColl), bson.M{"_id": id})
}

// Find loads the uploads among ids (those that are: in no order), with who
// uploaded them, their state and whether they are claimed.
func (r *Uploads) Find(ctx context.Context, ids []string) ([]domain.Upload, error) {
	return store.FindAll[domain.Upload](ctx, r.db.Collection(uploadsColl), bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetProjection(bson.M{"uploadedBy": 1, "state": 1, "referenced": 1}))
}

// Since loads user's uploads created after from (epoch ms), with their size
// and creation time: what the daily quota counts.
func (r *Uploads) Since(ctx context.Context, user string, from int64) ([]domain.Upload, error) {
	return store.FindAll[domain.Upload](ctx, r.db.Collection(uploadsColl), bson.M{"uploadedBy": user, "createdAt": bson.M{"$gt": from}},
		options.Find().SetProjection(bson.M{"size": 1, "createdAt": 1}))
}

// Reserve records u (pending, domain.NewPending) and adds its bytes to the
// total, in one transaction, only while the total stays within the cap max
// (domain.CapLimit; 0 is no cap): full, and nothing written, when it would
// not. The condition is on the total's document, so concurrent uploads never
// pass the cap together.
func (r *Uploads) Reserve(ctx context.Context, u domain.Upload, max int64) (full bool, err error) {
	err = r.db.Tx(ctx, func(tx context.Context) error {
		full = false
		filter := bson.M{"_id": usageID}
		if limit, bounded := domain.CapLimit(u.Size, max); bounded {
			filter["bytes"] = bson.M{"$lte": limit}
		}
		res, err := r.db.Collection(usageColl).UpdateOne(tx, filter, bson.M{"$inc": bson.M{"bytes": u.Size}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			full = true
			return nil
		}
		_, err = r.db.Collection(uploadsColl).InsertOne(tx, u)
		return err
	})
	return full, err
}

// Complete saves u, now stored (domain.Upload.Store), over its pending
// document, and corrects the total by the difference with the reserved
// bytes, in one transaction; an error when the pending document is gone.
func (r *Uploads) Complete(ctx context.Context, u domain.Upload, reserved int64) error {
	return r.db.Tx(ctx, func(tx context.Context) error {
		res, err := r.db.Collection(uploadsColl).UpdateOne(tx, bson.M{"_id": u.ID, "state": domain.StatePending}, bson.M{"$set": bson.M{
			"state": u.State, "contentType": u.ContentType, "size": u.Size, "sha256": u.SHA256}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return fmt.Errorf("media: the pending upload %s is gone", u.ID)
		}
		_, err = r.db.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": u.Size - reserved}})
		return err
	})
}

// Release drops the pending upload id and the reserved bytes from the total
// (the upload failed); nothing when it is no longer pending.
func (r *Uploads) Release(ctx context.Context, id string, reserved int64) error {
	return r.db.Tx(ctx, func(tx context.Context) error {
		res, err := r.db.Collection(uploadsColl).DeleteOne(tx, bson.M{"_id": id, "state": domain.StatePending})
		if err != nil || res.DeletedCount == 0 {
			return err
		}
		_, err = r.db.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": -reserved}})
		return err
	})
}

// Claim marks user's stored, unclaimed uploads among ids referenced at at
// (epoch ms), as domain.Upload.Claim does: one already claimed keeps its
// first claim, one swept meanwhile stays gone.
func (r *Uploads) Claim(ctx context.Context, user string, ids []string, at int64) error {
	_, err := r.db.Collection(uploadsColl).UpdateMany(ctx,
		bson.M{"_id": bson.M{"$in": ids}, "uploadedBy": user, "state": domain.StateStored, "referenced": false},
		bson.M{"$set": bson.M{"referenced": true, "referencedAt": at}})
	return err
}

// abandonedFilter selects the uploads a abandons (domain.Abandonment.Abandons).
func abandonedFilter(a domain.Abandonment) bson.M {
	if a.Pending {
		return bson.M{"state": domain.StatePending, "createdAt": bson.M{"$lt": a.Before}}
	}
	return bson.M{"referenced": false, "createdAt": bson.M{"$lt": a.Before}}
}

// Abandoned loads at most limit uploads a abandons, with what the sweep
// decides on and deletes.
func (r *Uploads) Abandoned(ctx context.Context, a domain.Abandonment, limit int) ([]domain.Upload, error) {
	return store.FindAll[domain.Upload](ctx, r.db.Collection(uploadsColl), abandonedFilter(a),
		options.Find().SetLimit(int64(limit)).SetProjection(bson.M{"size": 1, "state": 1, "referenced": 1, "createdAt": 1}))
}

// DeleteAbandoned deletes u, only while a still abandons it (a claim racing
// the sweep wins), and takes its bytes off the total, in one transaction; it
// answers whether it deleted it.
func (r *Uploads) DeleteAbandoned(ctx context.Context, u domain.Upload, a domain.Abandonment) (bool, error) {
	filter := abandonedFilter(a)
	filter["_id"] = u.ID
	deleted := false
	err := r.db.Tx(ctx, func(tx context.Context) error {
		deleted = false
		res, err := r.db.Collection(uploadsColl).DeleteOne(tx, filter)
		if err != nil || res.DeletedCount == 0 {
			return err
		}
		deleted = true
		_, err = r.db.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": -u.Size}})
		return err
	})
	return deleted && err == nil, err
}

// Adopt records u unless the upload is recorded already (the first record
// stays).
func (r *Uploads) Adopt(ctx context.Context, u domain.Upload) error {
	_, err := r.db.Collection(uploadsColl).UpdateOne(ctx, bson.M{"_id": u.ID}, bson.M{"$setOnInsert": u},
		options.Update().SetUpsert(true))
	return err
}

// Totals is the repository of the usage collection's documents: the total of
// every upload kept or reserved (written with the uploads: Uploads) and the
// record of the GridFS adoption.
type Totals struct{ db *store.DB }

// NewTotals is the repository on db.
func NewTotals(db *store.DB) *Totals { return &Totals{db: db} }

// Ensure creates the total, once, from every upload's size
// (domain.TotalOf), read only when there is no total yet.
func (r *Totals) Ensure(ctx context.Context) error {
	err := r.db.Collection(usageColl).FindOne(ctx, bson.M{"_id": usageID}).Err()
	if err == nil || !store.IsNotFound(err) {
		return err
	}
	all, err := store.FindAll[domain.Upload](store.Scan(ctx, "media: the total of every upload, once, when the usage document is created"),
		r.db.Collection(uploadsColl), bson.M{}, options.Find().SetProjection(bson.M{"size": 1}))
	if err != nil {
		return err
	}
	_, err = r.db.Collection(usageColl).UpdateOne(ctx, bson.M{"_id": usageID}, bson.M{"$setOnInsert": bson.M{"bytes": domain.TotalOf(all)}},
		options.Update().SetUpsert(true))
	return err
}

// Forget drops the total (Ensure counts it again).
func (r *Totals) Forget(ctx context.Context) error {
	_, err := r.db.Collection(usageColl).DeleteOne(ctx, bson.M{"_id": usageID})
	return err
}

// Adopted says whether the GridFS bucket's files were adopted in place.
func (r *Totals) Adopted(ctx context.Context) (bool, error) {
	err := r.db.Collection(usageColl).FindOne(ctx, bson.M{"_id": adoptedID}).Err()
	switch {
	case err == nil:
		return true, nil
	case store.IsNotFound(err):
		return false, nil
	}
	return false, err
}

// MarkAdopted records the adoption in place at at (epoch ms).
func (r *Totals) MarkAdopted(ctx context.Context, at int64) error {
	_, err := r.db.Collection(usageColl).UpdateOne(ctx, bson.M{"_id": adoptedID}, bson.M{"$set": bson.M{"at": at}},
		options.Update().SetUpsert(true))
	return err
}
