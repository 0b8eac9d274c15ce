package platformconfig

import (
	"context"
	"reflect"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/page"
	"marketplace/libs/store"
)

// The change history: every change to a configuration appends one entry, in the
// transaction of the change, listing the fields whose value changed with their
// old and new values as the interface shows them (AED numbers, rates as
// fractions, entries as their section 2.8 objects).

const historyColl = "platformConfigHistory"

// Change is one field of a configuration that changed. Field is a dotted path:
// defaultCommissionRate, walletSettings.minPayoutAmount,
// categoryCommissions.<categoryId>, storeTierCommissions.<tierName>. A value is
// null where the field did not exist (before creation, an entry not yet added).
type Change struct {
	Field    string `json:"field" bson:"field"`
	OldValue any    `json:"oldValue" bson:"oldValue" schema:"null|number|boolean|string|object"`
	NewValue any    `json:"newValue" bson:"newValue" schema:"null|number|boolean|string|object"`
}

// fieldValue is one field of a configuration and its value.
type fieldValue struct {
	field string
	value any
}

// fields lists what the history compares: every field of the configuration's
// view except its identity (_id, _creationTime), with the entries of the
// category and tier lists as fields of their own, keyed by category and tier.
func fields(v *ConfigView) []fieldValue {
	if v == nil {
		return nil
	}
	w, l := v.WalletSettings, v.LocationSettings
	out := []fieldValue{
		{"defaultCommissionRate", v.DefaultCommissionRate},
		{"fixedFeePerOrder", v.FixedFeePerOrder},
		{"minimumCommission", v.MinimumCommission},
		{"maximumCommission", v.MaximumCommission},
	}
	for _, c := range v.CategoryCommissions {
		out = append(out, fieldValue{"categoryCommissions." + c.CategoryID, c})
	}
	for _, t := range v.StoreTierCommissions {
		out = append(out, fieldValue{"storeTierCommissions." + t.TierName, t})
	}
	return append(out,
		fieldValue{"walletSettings.minPayoutAmount", w.MinPayoutAmount},
		fieldValue{"walletSettings.maxPayoutAmount", w.MaxPayoutAmount},
		fieldValue{"walletSettings.payoutProcessingFee", w.PayoutProcessingFee},
		fieldValue{"walletSettings.pendingBalanceHoldDays", w.PendingBalanceHoldDays},
		fieldValue{"locationSettings.defaultSearchRadiusKm", l.DefaultSearchRadiusKm},
		fieldValue{"locationSettings.maxSearchRadiusKm", l.MaxSearchRadiusKm},
		fieldValue{"isActive", v.IsActive},
		fieldValue{"effectiveDate", v.EffectiveDate},
	)
}

// diff lists the fields whose value differs between two views of a
// configuration (old nil: before it existed), in the order of fields(after),
// then the fields that only old had. Nothing changed: an empty list.
func diff(old, after *ConfigView) []Change {
	before := map[string]any{}
	ofs := fields(old)
	for _, f := range ofs {
		before[f.field] = f.value
	}
	var out []Change
	seen := map[string]bool{}
	for _, f := range fields(after) {
		seen[f.field] = true
		ov, ok := before[f.field]
		if !ok {
			out = append(out, Change{f.field, nil, f.value})
		} else if !reflect.DeepEqual(ov, f.value) {
			out = append(out, Change{f.field, ov, f.value})
		}
	}
	for _, f := range ofs {
		if !seen[f.field] {
			out = append(out, Change{f.field, f.value, nil})
		}
	}
	return out
}

// historyDoc is a stored history entry.
type historyDoc struct {
	ID        string   `bson:"_id"`
	ConfigID  string   `bson:"configId"`
	Seq       int64    `bson:"seq"` // the configuration's HistorySeq of this change
	ChangedBy string   `bson:"changedBy"`
	ChangedAt int64    `bson:"changedAt"`
	Operation string   `bson:"operation"`
	Changes   []Change `bson:"changes"`
}

// storedHistoryDoc reads a history entry back; values are decoded by kind (see
// value).
type storedHistoryDoc struct {
	ID        string `bson:"_id"`
	ConfigID  string `bson:"configId"`
	Seq       int64  `bson:"seq"`
	ChangedBy string `bson:"changedBy"`
	ChangedAt int64  `bson:"changedAt"`
	Operation string `bson:"operation"`
	Changes   []struct {
		Field    string        `bson:"field"`
		OldValue bson.RawValue `bson:"oldValue"`
		NewValue bson.RawValue `bson:"newValue"`
	} `bson:"changes"`
}

// entryValue reads back a category or a tier entry (whichever key it has).
type entryValue struct {
	CategoryID        string   `json:"categoryId,omitempty" bson:"categoryId,omitempty"`
	TierName          string   `json:"tierName,omitempty" bson:"tierName,omitempty"`
	CommissionRate    float64  `json:"commissionRate" bson:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty" bson:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty" bson:"minimumCommission,omitempty"`
}

// value is a stored change value as the interface shows it: null, a number, a
// boolean, or an entry object.
func value(rv bson.RawValue) (any, error) {
	switch rv.Type {
	case 0, bson.TypeNull:
		return nil, nil
	case bson.TypeEmbeddedDocument:
		var e entryValue
		err := rv.Unmarshal(&e)
		return e, err
	}
	var x any
	err := rv.Unmarshal(&x)
	return x, err
}

// HistoryEntryView is a history entry as administrators see it.
type HistoryEntryView struct {
	ID        string   `json:"_id"`
	ConfigID  string   `json:"configId"`
	ChangedBy string   `json:"changedBy"`
	ChangedAt int64    `json:"changedAt"`
	Operation string   `json:"operation"`
	Changes   []Change `json:"changes"`
}

func (h *storedHistoryDoc) view() (HistoryEntryView, error) {
	v := HistoryEntryView{ID: h.ID, ConfigID: h.ConfigID, ChangedBy: h.ChangedBy, ChangedAt: h.ChangedAt, Operation: h.Operation,
		Changes: make([]Change, len(h.Changes))}
	for i, c := range h.Changes {
		ov, err := value(c.OldValue)
		if err != nil {
			return v, err
		}
		nv, err := value(c.NewValue)
		if err != nil {
			return v, err
		}
		v.Changes[i] = Change{c.Field, ov, nv}
	}
	return v, nil
}

func newHistoryID() string { return ids.New("platformConfigChanges") }

// record appends the history entry of a change of d, inside the caller's
// transaction (ctx carries it). d.HistorySeq must already count this change.
func (s *svc) record(ctx context.Context, d *configDoc, operation, adminID string, at int64, changes []Change) error {
	_, err := s.env.DB.Collection(historyColl).InsertOne(ctx, historyDoc{
		ID: newHistoryID(), ConfigID: d.ID, Seq: d.HistorySeq, ChangedBy: adminID, ChangedAt: at, Operation: operation, Changes: changes,
	})
	return err
}

type historyArgs struct {
	ConfigID       string    `json:"configId" op:"required,id=platformConfig"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// getConfigHistory pages through a configuration's history, newest first.
func (s *svc) getConfigHistory(ctx context.Context, a *historyArgs) (page.Result[HistoryEntryView], error) {
	err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": a.ConfigID}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if store.IsNotFound(err) {
		return page.Result[HistoryEntryView]{}, apperr.New(apperr.NotFound, "platform configuration %s does not exist", a.ConfigID)
	}
	if err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	r, err := page.Find(ctx, s.env.DB.Collection(historyColl), bson.M{"configId": a.ConfigID},
		page.Sort{Field: "seq", Desc: true}, a.PaginationOpts, func(h *storedHistoryDoc) (any, string) { return h.Seq, h.ID })
	if err != nil {
		return page.Result[HistoryEntryView]{}, err
	}
	out := page.Result[HistoryEntryView]{Page: make([]HistoryEntryView, len(r.Page)), IsDone: r.IsDone, ContinueCursor: r.ContinueCursor}
	for i := range r.Page {
		if out.Page[i], err = r.Page[i].view(); err != nil {
			return page.Result[HistoryEntryView]{}, err
		}
	}
	return out, nil
}

// historyIndexes serve getConfigHistory (one configuration's entries by seq) and
// hold the numbering: one entry per change number of a configuration.
var historyIndexes = []store.Index{
	{Collection: historyColl, Keys: bson.D{{Key: "configId", Value: 1}, {Key: "seq", Value: -1}}, Unique: true, Name: "history_by_config"},
	// The pages (libs/page breaks ties by _id, which MongoDB cannot know
	// never happen here).
	{Collection: historyColl, Keys: bson.D{{Key: "configId", Value: 1}, {Key: "seq", Value: -1}, {Key: "_id", Value: -1}}, Name: "history_pages"},
}
