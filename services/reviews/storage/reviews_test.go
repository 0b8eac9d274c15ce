package storage

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// TestUpdateSavesWhatChanged: Update writes the fields the function changed
// and leaves the rest of the stored document as it is, fields its type does
// not know included; a refusal writes nothing; a missing review is NOT_FOUND.
func TestUpdateSavesWhatChanged(t *testing.T) {
	ctx := context.Background()
	db, reviews, _ := memDB(t)
	if _, err := db.Collection(reviewsColl).InsertOne(ctx, bson.M{"_id": "rev_1", "storeId": "sto_1", "rating": 4, "title": "t",
		"comment": "", "photoIds": bson.A{}, "hidden": false, "flagCount": 2, "createdAt": int64(1), "updatedAt": int64(1)}); err != nil {
		t.Fatal(err)
	}
	if err := reviews.Update(ctx, "rev_1", func(r *domain.Review) error { r.Rating = 2; return nil }); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	if err := reviews.Update(ctx, "rev_1", func(r *domain.Review) error { r.Rating = 5; return refused }); !errors.Is(err, refused) {
		t.Fatal(err)
	}
	var got bson.M
	if err := db.Collection(reviewsColl).FindOne(ctx, bson.M{"_id": "rev_1"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["rating"] != int32(2) || got["flagCount"] != int32(2) || got["title"] != "t" {
		t.Fatalf("stored %v", got)
	}
	if _, ok := got["storeResponse"]; ok {
		t.Fatalf("an absent field written: %v", got)
	}
	err := reviews.Update(ctx, "rev_x", func(r *domain.Review) error { return nil })
	if e := apperr.From(err); e == nil || e.Code != apperr.NotFound || e.Message != "review rev_x does not exist" {
		t.Fatalf("missing review: %v", err)
	}
}

// TestUpdateRunsAgainOnAFreshLoad: after a conflict the function runs again
// on the review as stored, not as the earlier attempt left it.
func TestUpdateRunsAgainOnAFreshLoad(t *testing.T) {
	ctx := context.Background()
	db, reviews, _ := memDB(t)
	if err := reviews.Insert(ctx, &domain.Review{ID: "rev_1", StoreID: "sto_1", Rating: 4, Title: "t", PhotoIDs: []string{}}); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	err := db.Joined(ctx, func(ctx context.Context) error {
		return reviews.Update(ctx, "rev_1", func(r *domain.Review) error {
			attempts++
			if attempts == 1 {
				r.Title = "first attempt"
				return store.ErrConflict
			}
			if r.Title != "t" {
				t.Errorf("attempt %d saw the title %q", attempts, r.Title)
			}
			r.Comment = "second attempt"
			return nil
		})
	})
	if err != nil || attempts != 2 {
		t.Fatalf("%d attempts, %v", attempts, err)
	}
	r, err := reviews.Get(ctx, "rev_1")
	if err != nil || r.Title != "t" || r.Comment != "second attempt" {
		t.Fatalf("%+v %v", r, err)
	}
}
