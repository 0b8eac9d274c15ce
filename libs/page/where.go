package page

import (
	"context"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
)

// FindWhere is Find for a condition the database cannot test (a part of a
// name in any case, say): it reads filter's records in order s a batch at a
// time and keeps those keep accepts, until the page is full or maxRead
// records were read past the cursor (then the page ends there: IsDone false,
// its cursor after the last record read, so the next page goes on from
// there). Use it only where filter's range is bounded (a store's products).
func FindWhere[T any](ctx context.Context, c lungo.ICollection, filter bson.M, s Sort, o Opts, key func(*T) (any, string), keep func(*T) bool, maxRead int) (Result[T], error) {
	n := min(max(o.NumItems, 1), MaxItems)
	var kept []T
	cursor := o.Cursor
	var last *position // the last record read
	read := 0
	for {
		batch, err := Find(ctx, c, filter, s, Opts{NumItems: MaxItems, Cursor: cursor}, key)
		if err != nil {
			return Result[T]{}, err
		}
		for i := range batch.Page {
			read++
			if keep(&batch.Page[i]) {
				if len(kept) == n { // one more after a full page: not done
					v, id := key(&kept[n-1])
					return Result[T]{Page: kept, ContinueCursor: encode(s.at(v, id))}, nil
				}
				kept = append(kept, batch.Page[i])
			}
			v, id := key(&batch.Page[i])
			p := s.at(v, id)
			last = &p
			more := i < len(batch.Page)-1 || !batch.IsDone
			if read >= maxRead && more {
				return Result[T]{Page: kept, ContinueCursor: encode(*last)}, nil
			}
		}
		if batch.IsDone {
			res := Result[T]{Page: kept, IsDone: true}
			switch {
			case last != nil:
				res.ContinueCursor = encode(*last)
			case o.Cursor != nil:
				res.ContinueCursor = *o.Cursor
			}
			return res, nil
		}
		cursor = &batch.ContinueCursor
	}
}
