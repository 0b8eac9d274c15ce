package store

import (
	"context"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// FindAll decodes every document filter finds in c into a []T: empty but
// never nil when none matched (it answers [] in JSON, not null).
func FindAll[T any](ctx context.Context, c lungo.ICollection, filter any, opts ...*options.FindOptions) ([]T, error) {
	cur, err := c.Find(ctx, filter, opts...)
	if err != nil {
		return nil, err
	}
	out := []T{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// FindOne decodes the first document filter finds in c into a new T: nil,
// and no error, when there is none.
func FindOne[T any](ctx context.Context, c lungo.ICollection, filter any, opts ...*options.FindOneOptions) (*T, error) {
	var v T
	if err := c.FindOne(ctx, filter, opts...).Decode(&v); err != nil {
		if IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return &v, nil
}
