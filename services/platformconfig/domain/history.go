package domain

import "reflect"

// The change history: every change to a configuration appends one entry, in the
// transaction of the change, listing the fields whose value changed with their
// old and new values as the interface shows them (AED numbers, rates as
// fractions, entries as their section 2.8 objects).

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
		fieldValue{"walletSettings.disputeFee", w.DisputeFee},
		fieldValue{"walletSettings.disputeFeeChargedTo", w.DisputeFeeChargedTo},
		fieldValue{"locationSettings.defaultSearchRadiusKm", l.DefaultSearchRadiusKm},
		fieldValue{"locationSettings.maxSearchRadiusKm", l.MaxSearchRadiusKm},
		fieldValue{"isActive", v.IsActive},
		fieldValue{"effectiveDate", v.EffectiveDate},
	)
}

// Diff lists the fields whose value differs between two views of a
// configuration (old nil: before it existed), in the order of fields(after),
// then the fields that only old had. Nothing changed: an empty list.
func Diff(old, after *ConfigView) []Change {
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

// HistoryEntry is one change of a configuration (collection
// platformConfigHistory). Read back, a change's values are null, a number, a
// boolean, or an EntryValue.
type HistoryEntry struct {
	ID        string `bson:"_id"`
	ConfigID  string `bson:"configId"`
	Seq       int64  `bson:"seq"` // the configuration's HistorySeq of this change
	ChangedBy string `bson:"changedBy"`
	// ChangedByName is the administrator's name from their token when the
	// change was made ("" : the token named no one; older entries).
	ChangedByName string   `bson:"changedByName,omitempty"`
	ChangedAt     int64    `bson:"changedAt"`
	Operation     string   `bson:"operation"`
	Changes       []Change `bson:"changes"`
}

// NewHistoryEntry is the entry of a change of c just applied (c.HistorySeq
// counts it) by operation.
func NewHistoryEntry(id string, c *Config, operation, adminID, adminName string, at int64, changes []Change) HistoryEntry {
	return HistoryEntry{ID: id, ConfigID: c.ID, Seq: c.HistorySeq, ChangedBy: adminID, ChangedByName: adminName, ChangedAt: at, Operation: operation, Changes: changes}
}

// EntryValue is a category or a tier entry read back from the history
// (whichever key it has).
type EntryValue struct {
	CategoryID        string   `json:"categoryId,omitempty" bson:"categoryId,omitempty"`
	TierName          string   `json:"tierName,omitempty" bson:"tierName,omitempty"`
	CommissionRate    float64  `json:"commissionRate" bson:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty" bson:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty" bson:"minimumCommission,omitempty"`
}

// HistoryEntryView is a history entry as administrators see it.
type HistoryEntryView struct {
	ID        string `json:"_id"`
	ConfigID  string `json:"configId"`
	ChangedBy string `json:"changedBy"`
	// ChangedByName: see HistoryEntry; omitted when unknown.
	ChangedByName string   `json:"changedByName,omitempty"`
	ChangedAt     int64    `json:"changedAt"`
	Operation     string   `json:"operation"`
	Changes       []Change `json:"changes"`
}

// View is h as administrators see it.
func (h *HistoryEntry) View() HistoryEntryView {
	changes := h.Changes
	if changes == nil {
		changes = []Change{}
	}
	return HistoryEntryView{ID: h.ID, ConfigID: h.ConfigID, ChangedBy: h.ChangedBy, ChangedByName: h.ChangedByName, ChangedAt: h.ChangedAt, Operation: h.Operation, Changes: changes}
}
