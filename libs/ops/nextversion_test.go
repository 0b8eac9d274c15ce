//go:build nextversion

package ops

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/version"
)

type item struct {
	ID string `json:"id"`
}

// TestNextVersionAnswers: every answer that is a record, and every record of
// an answer that is a list, carries the added field; a dictionary (a map:
// a key more would be an entry more) and other answers are as they were.
func TestNextVersionAnswers(t *testing.T) {
	reg := NewRegistry("shop",
		NewQuery("shop.items.one", Public, "", func(context.Context, *NoArgs) (item, error) { return item{ID: "a"}, nil }),
		NewQuery("shop.items.empty", Public, "", func(context.Context, *NoArgs) (struct{}, error) { return struct{}{}, nil }),
		NewQuery("shop.items.list", Public, "", func(context.Context, *NoArgs) ([]item, error) { return []item{{ID: "a"}, {ID: "b"}}, nil }),
		NewQuery("shop.items.name", Public, "", func(context.Context, *NoArgs) (string, error) { return "n", nil }),
		NewQuery("shop.items.byId", Public, "", func(context.Context, *NoArgs) (map[string]item, error) { return map[string]item{"a": {ID: "a"}}, nil }),
	)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	(&Server{Registry: reg}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	call := func(path string) string {
		resp, err := http.Post("http://"+ln.Addr().String()+"/api/query", "application/json", strings.NewReader(`{"path":"`+path+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for path, want := range map[string]string{
		"shop.items.one":   `{"nextVersionField":"added by the next version","id":"a"}`,
		"shop.items.empty": `{"nextVersionField":"added by the next version"}`,
		"shop.items.list":  `[{"nextVersionField":"added by the next version","id":"a"},{"nextVersionField":"added by the next version","id":"b"}]`,
		"shop.items.name":  `"n"`,
		"shop.items.byId":  `{"a":{"id":"a"}}`,
	} {
		if got := call(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	// The declaration says so.
	for _, d := range reg.Describe() {
		record := d.Returns
		if d.Path == "shop.items.list" {
			record = d.Returns.Items
		}
		declared := record.Properties.Get(NextAnswerField) != nil && slices.Contains(record.Required, NextAnswerField)
		if want := d.Path != "shop.items.name" && d.Path != "shop.items.byId"; declared != want {
			t.Errorf("%s declares %s: %v, want %v (%+v)", d.Path, NextAnswerField, declared, want, record)
		}
	}
	var c version.Contracts = version.BuiltContracts()
	if c.Internal == version.Legacy.Internal {
		t.Errorf("the next version declares internal %s", c.Internal)
	}
}

// TestNextVersionInternalArgument: every internal operation declares and
// accepts the optional argument (a string); public operations do not.
func TestNextVersionInternalArgument(t *testing.T) {
	echo := func(_ context.Context, a *calleeArgs) (string, error) { return a.Name, nil }
	reg := NewRegistry("shop",
		NewQuery("shop.items.inside", Internal, "", echo),
		NewQuery("shop.items.outside", Public, "", echo),
	)
	for _, d := range reg.Describe() {
		declared := slices.ContainsFunc(d.Args, func(a ArgDoc) bool { return a.Name == nextArg && !a.Required })
		inSchema := d.ArgsSchema.Properties.Get(nextArg) != nil && !slices.Contains(d.ArgsSchema.Required, nextArg)
		if internal := d.Access == Internal; declared != internal || inSchema != internal {
			t.Errorf("%s: declares %s %v, in its schema %v", d.Path, nextArg, declared, inSchema)
		}
	}
	ctx := context.Background()
	if got, err := reg.Invoke(ctx, Query, "shop.items.inside", []byte(`{"name":"a","nextVersionArg":"x"}`), true); err != nil || got != "a" {
		t.Fatalf("internal with the argument: %v %v", got, err)
	}
	if got, err := reg.Invoke(ctx, Query, "shop.items.inside", []byte(`{"name":"a"}`), true); err != nil || got != "a" {
		t.Fatalf("internal without it: %v %v", got, err)
	}
	if _, err := reg.Invoke(ctx, Query, "shop.items.inside", []byte(`{"name":"a","nextVersionArg":5}`), true); apperr.CodeOf(err) != apperr.InvalidArgument ||
		!strings.Contains(err.Error(), "nextVersionArg: must be a string") {
		t.Fatalf("a number: %v", err)
	}
	if _, err := reg.Invoke(ctx, Query, "shop.items.outside", []byte(`{"name":"a","nextVersionArg":"x"}`), false); apperr.CodeOf(err) != apperr.InvalidArgument ||
		!strings.Contains(err.Error(), "nextVersionArg: unknown argument") {
		t.Fatalf("a public operation: %v", err)
	}
}

// currentRelease makes tc answer as a callee built without the tag: its
// declarations lack the argument, and it refuses it as an unknown one.
func currentRelease(tc *testCallee) {
	tc.declare = func() []Descriptor {
		descs := tc.reg.Describe()
		for i := range descs {
			descs[i].Args = slices.DeleteFunc(slices.Clone(descs[i].Args), func(a ArgDoc) bool { return a.Name == nextArg })
		}
		return descs
	}
	tc.refuse = nextArg
}

// TestNextVersionCallerOfCurrentCallee: a caller built with the tag calls a
// callee built without it: the first call, sent before the declarations are
// known, is refused and sent again without the argument; later calls leave it
// out from the start.
func TestNextVersionCallerOfCurrentCallee(t *testing.T) {
	callee := currentCallee(t, version.Legacy)
	currentRelease(callee)
	c := callerOf(map[string]string{"shop": callee.url})
	for range 3 {
		var out calleeAnswer
		if err := c.Query(context.Background(), "shop", "t.items.get", calleeArgs{Name: "a"}, &out); err != nil || out.Name != "a" {
			t.Fatalf("%v %+v", err, out)
		}
	}
	calls := callee.sent()
	if len(calls) != 4 || !has(calls[0], nextArg) || slices.ContainsFunc(calls[1:], func(a map[string]json.RawMessage) bool { return has(a, nextArg) }) {
		t.Fatalf("the callee received %v, want the argument once, refused, then never", calls)
	}
}

// TestNextVersionCallerOfNextCallee: both built with the tag: every call
// carries the argument, and every answer the field.
func TestNextVersionCallerOfNextCallee(t *testing.T) {
	callee := currentCallee(t, version.BuiltContracts())
	c := callerOf(map[string]string{"shop": callee.url})
	for range 3 {
		var out map[string]any
		if err := c.Query(context.Background(), "shop", "t.items.get", calleeArgs{Name: "a"}, &out); err != nil || out[NextAnswerField] == nil {
			t.Fatalf("%v %+v", err, out)
		}
	}
	for _, a := range callee.sent() {
		if string(a[nextArg]) != `"added by the next version"` {
			t.Fatalf("a call without the argument: %v", a)
		}
	}
}
