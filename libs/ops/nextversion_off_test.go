//go:build !nextversion

package ops

import (
	"context"
	"encoding/json"
	"testing"
)

// TestDefaultBuildAddsNothing: without the nextversion tag, answers,
// arguments and declarations are exactly the code's own.
func TestDefaultBuildAddsNothing(t *testing.T) {
	answer := map[string]any{"a": 1}
	got, _ := encodeAnswer(answer)
	want, _ := json.Marshal(answer)
	if string(got) != string(want) || NextAnswerField != "" || nextArg != "" {
		t.Fatalf("answer %s", got)
	}
	if got := withNextArg([]byte(`{"a":1}`)); string(got) != `{"a":1}` {
		t.Fatalf("arguments %s", got)
	}
	reg := NewRegistry("shop", NewQuery("shop.items.inside", Internal, "", func(context.Context, *calleeArgs) (item, error) { return item{}, nil }))
	d := reg.Describe()[0]
	if len(d.Args) != 1 || len(d.ArgsSchema.Properties) != 1 || len(d.Returns.Properties) != 1 {
		t.Fatalf("declaration %+v", d)
	}
	if _, err := reg.Invoke(context.Background(), Query, "shop.items.inside", []byte(`{"name":"a","nextVersionArg":"x"}`), true); err == nil {
		t.Fatal("the default build accepted the next version's argument")
	}
}

type item struct {
	ID string `json:"id"`
}
