//go:build nextversion

package events

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// TestNextVersionPayloadField: a build with the nextversion tag adds its field
// to every payload object it writes to the outbox (so to what is published);
// other payloads are as they were.
func TestNextVersionPayloadField(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                     `{"nextVersionField":"added by the next version","a":1}`,
		`{}`:                          `{"nextVersionField":"added by the next version"}`,
		`[1,2]`:                       `[1,2]`,
		`"s"`:                         `"s"`,
		`null`:                        `null`,
		`{"nextVersionField":"kept"}`: `{"nextVersionField":"kept"}`,
	} {
		if got := string(withNextPayload([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db := openDB(t, ctx)
	o := NewOutbox(db, "orders-svc", testVersions)
	var env Envelope
	err := db.Tx(ctx, func(tx context.Context) error {
		var err error
		env, err = o.Add(tx, topic, "order.created", "ord_1", struct {
			N int `json:"n"`
		}{7})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var doc outboxDoc
	if err := db.Collection(outboxCollection).FindOne(ctx, bson.M{"_id": env.ID}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	written, err := Decode([]byte(doc.Envelope))
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(written.Data, &data); err != nil || data[NextPayloadField] != nextPayloadValue || data["n"] != 7.0 {
		t.Fatalf("the written payload: %s (%v)", written.Data, err)
	}
}
