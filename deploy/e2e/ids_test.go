package e2e

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// Issue 18, item 6: record ids are random (libs/ids), so they reveal neither
// when a record was made nor how many were made around it; lists are in
// creation order by a creation time field.

// nextMillisecond waits until the clock has left the current millisecond, so
// records made after it have a later creation time than those made before:
// lists are in creation order to the millisecond, and ids (random) order only
// records of the same millisecond.
func nextMillisecond() {
	start := time.Now().UnixMilli()
	for time.Now().UnixMilli() == start {
		time.Sleep(100 * time.Microsecond)
	}
}

// objectIDTime reads the 24 hex digits of an id as an ObjectID's creation time.
func objectIDTime(t *testing.T, id string) (time.Time, string) {
	t.Helper()
	b, err := hex.DecodeString(id[strings.IndexByte(id, '_')+1:])
	if err != nil || len(b) != 12 {
		t.Fatalf("id %q is not a prefix and 24 hex digits", id)
	}
	return time.Unix(int64(binary.BigEndian.Uint32(b[:4])), 0), hex.EncodeToString(b[4:9])
}

// TestRecordIdsRevealNothing: ids of orders and payouts made one after another
// keep their prefix but carry no creation time and no shared process bytes (an
// ObjectID holds the time of its making and, within a process, the same five
// bytes, then a counter).
func TestRecordIdsRevealNothing(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tok, customer := newCustomer(t, s, "user-ids")
	orders := []string{rs.orderA, rs.orderOf(t, tok, customer, rs.storeA), rs.orderOf(t, rs.user, rs.customer, rs.storeB)}

	w := &payoutsWorld{s: s, admin: rs.admin, owner: rs.owner, store: rs.storeA} // (the shop has a configuration)
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	w.credit(t, w.store, w.wallet, 1000)
	payouts := []string{okID(t, w.request(w.owner, w.store, 100)), okID(t, w.request(w.owner, w.store, 100))}
	txs := w.transactions(t, w.owner, w.store)
	var txIDs []string
	for _, x := range txs {
		txIDs = append(txIDs, x.ID)
	}

	for _, kind := range []struct {
		prefix string
		ids    []string
	}{{"ord_", orders}, {"pay_", payouts}, {"wtx_", txIDs}} {
		if len(kind.ids) < 2 {
			t.Fatalf("%s: only %v", kind.prefix, kind.ids)
		}
		processes := map[string]bool{}
		for _, id := range kind.ids {
			if !strings.HasPrefix(id, kind.prefix) {
				t.Errorf("id %s lost its prefix %s", id, kind.prefix)
			}
			at, process := objectIDTime(t, id)
			if d := time.Since(at); d > -24*time.Hour && d < 24*time.Hour {
				t.Errorf("id %s holds a time of its making (%v)", id, at.UTC())
			}
			processes[process] = true
		}
		if len(processes) != len(kind.ids) {
			t.Errorf("ids %v share their middle bytes", kind.ids)
		}
	}
}
