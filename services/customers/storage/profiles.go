package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// Profiles keeps customer profiles, one per user (unique index).
type Profiles struct{ db *store.DB }

func NewProfiles(db *store.DB) *Profiles { return &Profiles{db: db} }

// Upsert writes the user's profile edit at now, creating the profile on the
// user's first call; it answers the profile's id.
func (r *Profiles) Upsert(ctx context.Context, userID string, e domain.ProfileEdit, now int64) (string, error) {
	set := bson.M{"name": e.Name, "nameKey": domain.NameKey(e.Name), "updatedAt": now}
	if e.Phone != nil {
		set["phone"] = *e.Phone
	}
	if e.Email != nil {
		set["email"] = *e.Email
	}
	upsert := func() (string, error) {
		var p domain.Profile
		err := r.db.Collection(profiles).FindOneAndUpdate(ctx, bson.M{"userId": userID},
			bson.M{"$set": set, "$setOnInsert": bson.M{"_id": ids.New("customers"), "userId": userID, "creationTime": now}},
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&p)
		return p.ID, err
	}
	id, err := upsert()
	if store.IsDuplicate(err) {
		// Two first calls raced; the unique index let one insert win. Ours updates it.
		id, err = upsert()
	}
	return id, err
}

// OfUser is the user's profile, or nil.
func (r *Profiles) OfUser(ctx context.Context, userID string) (*domain.Profile, error) {
	return store.FindOne[domain.Profile](ctx, r.db.Collection(profiles), bson.M{"userId": userID})
}

// Get is the profile with id; NOT_FOUND when there is none.
func (r *Profiles) Get(ctx context.Context, id string) (*domain.Profile, error) {
	p, err := store.FindOne[domain.Profile](ctx, r.db.Collection(profiles), bson.M{"_id": id})
	if err == nil && p == nil {
		return nil, apperr.New(apperr.NotFound, "customer %s does not exist", id)
	}
	return p, err
}

// ByIDs are the profiles with these ids; missing ids are absent.
func (r *Profiles) ByIDs(ctx context.Context, ids []string) ([]domain.Profile, error) {
	return store.FindAll[domain.Profile](ctx, r.db.Collection(profiles), bson.M{"_id": bson.M{"$in": ids}})
}
