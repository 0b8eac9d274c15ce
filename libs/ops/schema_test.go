package ops

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
	"marketplace/libs/page"
)

type schemaInner struct {
	Label string `json:"label" op:"required,nonblank,max=20"`
}

type schemaArgs struct {
	StoreID string        `json:"storeId" op:"required,id=stores"`
	Note    *string       `json:"note" op:"multiline"`
	Tier    *string       `json:"tier" op:"enum=basic|premium"`
	Price   money.Fils    `json:"price" op:"required,min=0.01,max=1000"`
	Count   *int          `json:"count" op:"min=1"`
	Ratio   *float64      `json:"ratio" op:"min=0,max=1"`
	Flag    *bool         `json:"flag"`
	Tags    []string      `json:"tags" op:"min=1,max=3,nonblank"`
	Inner   *schemaInner  `json:"inner"`
	List    []schemaInner `json:"list"`
	Page    page.Opts     `json:"paginationOpts" op:"required"`
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestArgsSchemaFollowsTheDecoder: the argument schema says what Decode
// accepts: a closed object, the rules' bounds, nullable optional fields,
// AED with two decimals, element rules on array items.
func TestArgsSchemaFollowsTheDecoder(t *testing.T) {
	s := ArgsSchemaOf(reflect.TypeOf(schemaArgs{}))
	want := `{"type":"object","properties":{` +
		`"storeId":{"type":"string","maxLength":10000,"pattern":"^sto_[0-9a-fA-F]{24}$","x-id-kind":"stores"},` +
		`"note":{"type":["string","null"],"description":"multi-line text","maxLength":10000},` +
		`"tier":{"type":["string","null"],"maxLength":10000,"enum":["basic","premium",null]},` + // null: an optional argument may be sent as null
		`"price":{"type":"number","description":"AED, at most two decimals","minimum":0.01,"maximum":1000,"multipleOf":0.01},` +
		`"count":{"type":["integer","null"],"minimum":1,"maximum":9007199254740992},` +
		`"ratio":{"type":["number","null"],"minimum":0,"maximum":1},` +
		`"flag":{"type":["boolean","null"]},` +
		`"tags":{"type":["array","null"],"items":{"type":"string","minLength":1,"maxLength":10000,"pattern":"\\S"},"minItems":1,"maxItems":3},` +
		`"inner":{"type":["object","null"],"properties":{"label":{"type":"string","minLength":1,"maxLength":20,"pattern":"\\S"}},"required":["label"],"additionalProperties":false},` +
		`"list":{"type":["array","null"],"items":{"type":"object","properties":{"label":{"type":"string","minLength":1,"maxLength":20,"pattern":"\\S"}},"required":["label"],"additionalProperties":false},"maxItems":100},` +
		`"paginationOpts":{"type":"object","title":"PaginationOptions","properties":{` +
		`"numItems":{"type":"integer","minimum":1,"maximum":9007199254740992},` +
		`"cursor":{"type":["string","null"],"maxLength":10000},` +
		`"id":{"type":["number","null"]},` +
		`"endCursor":{"type":["string","null"],"maxLength":10000},` +
		`"maximumRowsRead":{"type":["integer","null"],"minimum":-9007199254740992,"maximum":9007199254740992},` +
		`"maximumBytesRead":{"type":["integer","null"],"minimum":-9007199254740992,"maximum":9007199254740992}},` +
		`"required":["numItems"],"additionalProperties":false}},` +
		`"required":["storeId","price","paginationOpts"],"additionalProperties":false}`
	if got := mustJSON(t, s); got != want {
		t.Errorf("args schema:\n got %s\nwant %s", got, want)
	}
	// Through the wire and back, nothing is lost (the gateway reads the
	// schemas from GET /ops): property order and additionalProperties too.
	var back Schema
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, &back); got != want {
		t.Errorf("round trip:\n got %s\nwant %s", got, want)
	}
	if !back.Closed || back.Properties[0].Name != "storeId" || back.Properties.Get("paginationOpts").Title != TitlePaginationOpts {
		t.Errorf("round trip lost the object's shape: %+v", back)
	}
}

type embedded struct {
	CreatedAt int64 `json:"_creationTime"`
	Shadowed  bool  `json:"name"` // the outer struct's name wins
}

type schemaResult struct {
	embedded
	ID       string            `json:"_id"`
	Name     string            `json:"name"`
	Note     string            `json:"note,omitempty"`
	Parent   *schemaInner      `json:"parent"`
	Items    []schemaInner     `json:"items"`
	Counts   map[string]int    `json:"counts"`
	When     time.Time         `json:"when"`
	NoTag    bool              //nolint: encoding/json uses the Go name
	Hidden   string            `json:"-"`
	private  string            //nolint:unused
	Value    any               `json:"value" schema:"null|number|object"`
	Anything any               `json:"anything" schema:"any"`
	Code     string            `json:"code" doc:"the code" pattern:"^[A-Z]+$"`
	Nested   page.Result[bool] `json:"nested"`
}

func TestResultSchemaFollowsEncodingJSON(t *testing.T) {
	s := ResultSchemaOf(reflect.TypeOf(schemaResult{}))
	want := `{"type":"object","properties":{` +
		`"_creationTime":{"type":"integer"},` +
		`"_id":{"type":"string"},"name":{"type":"string"},"note":{"type":"string"},` +
		`"parent":{"type":["object","null"],"properties":{"label":{"type":"string"}},"required":["label"]},` +
		`"items":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"}},"required":["label"]}},` +
		`"counts":{"type":"object","additionalProperties":{"type":"integer"}},` +
		`"when":{"type":"string","format":"date-time"},` +
		`"NoTag":{"type":"boolean"},` +
		`"value":{"type":["null","number","object"]},` +
		`"anything":{"description":"any JSON value"},` +
		`"code":{"type":"string","description":"the code","pattern":"^[A-Z]+$"},` +
		`"nested":{"type":"object","title":"PaginationResult","properties":{"page":{"type":"array","items":{"type":"boolean"}},"isDone":{"type":"boolean"},"continueCursor":{"type":"string"}},"required":["page","isDone","continueCursor"]}},` +
		`"required":["_creationTime","_id","name","parent","items","counts","when","NoTag","value","anything","code","nested"]}`
	if got := mustJSON(t, s); got != want {
		t.Errorf("result schema:\n got %s\nwant %s", got, want)
	}
	_ = schemaResult{}.private
	// What encoding/json writes has exactly the schema's keys: every one it
	// writes is a property, every required one is written.
	for _, v := range []schemaResult{{}, {Note: "n", Parent: &schemaInner{Label: "x"}, Value: 1.5}} {
		b, _ := json.Marshal(v)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if s.Properties.Get(k) == nil {
				t.Errorf("encoding/json writes %q, which the schema does not have", k)
			}
		}
		for _, k := range s.Required {
			if _, ok := m[k]; !ok {
				t.Errorf("the schema requires %q, which encoding/json left out of %s", k, b)
			}
		}
	}
}

func TestResultSchemaMarksWhatItCannotKnow(t *testing.T) {
	type withAny struct {
		Inner struct {
			V any `json:"v"`
		} `json:"inner"`
	}
	type badTag struct {
		V any `json:"v" schema:"thing"`
	}
	type recursive struct {
		Children []recursive `json:"children"`
	}
	cases := map[string]reflect.Type{
		"value.inner.v: interface {}":                reflect.TypeOf(withAny{}),
		"value: interface {}":                        reflect.TypeOf((*any)(nil)).Elem(),
		"value: json.RawMessage":                     reflect.TypeOf(json.RawMessage{}),
		"value.v: interface {}: schema":              reflect.TypeOf(badTag{}),
		"value.children[]: ops.recursive: recursive": reflect.TypeOf(recursive{}),
		"value: func()":                              reflect.TypeOf(func() {}),
		"value: map[int]string":                      reflect.TypeOf(map[int]string{}),
	}
	for want, typ := range cases {
		var got []string
		ResultSchemaOf(typ).Walk(func(p string, s *Schema) {
			if s.Unknown != "" {
				got = append(got, "value"+p+": "+s.Unknown)
			}
		})
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("%s: unknowns %q", typ, got)
		}
	}
	if s := ResultSchemaOf(reflect.TypeOf(Null(nil))); mustJSON(t, s) != `{"type":"null"}` {
		t.Errorf("Null: %s", mustJSON(t, s))
	}
}

type resultView struct {
	ID string `json:"_id"`
}

func TestDescriptorCarriesSchemasAndErrors(t *testing.T) {
	typed := func(context.Context, *NoArgs) (*resultView, error) { return nil, nil }
	untyped := func(context.Context, *NoArgs) (any, error) { return nil, nil }
	nothing := func(context.Context, *NoArgs) (Null, error) { return nil, nil }
	r := NewRegistry("t",
		NewQuery("t.s.typed", Public, "", typed),
		NewQuery("t.s.declared", Authenticated, "", untyped, Returns[[]resultView]()),
		NewQuery("t.s.untyped", Public, "", untyped),
		NewMutation("t.s.nothing", Admin, "", nothing),
		NewQuery("t.s.extra", Public, "", typed, Errors(apperr.FailedPrecondition)),
	)
	got := map[string]Descriptor{}
	for _, d := range r.Describe() {
		got[d.Path] = d
	}
	for path, want := range map[string]string{
		"t.s.typed":    `{"type":["object","null"],"properties":{"_id":{"type":"string"}},"required":["_id"]}`,
		"t.s.declared": `{"type":"array","items":{"type":"object","properties":{"_id":{"type":"string"}},"required":["_id"]}}`,
		"t.s.nothing":  `{"type":"null"}`,
	} {
		if s := mustJSON(t, got[path].Returns); s != want {
			t.Errorf("%s returns %s, want %s", path, s, want)
		}
	}
	if got["t.s.untyped"].Returns.Unknown == "" {
		t.Errorf("an undeclared any return must be unknown: %s", mustJSON(t, got["t.s.untyped"].Returns))
	}
	if s := mustJSON(t, got["t.s.typed"].ArgsSchema); s != `{"type":"object","additionalProperties":false}` {
		t.Errorf("no arguments: %s", s)
	}
	codes := func(p string) string { return strings.Trim(mustJSON(t, got[p].Errors), "[]") }
	for path, want := range map[string]string{
		"t.s.typed":    `"INVALID_ARGUMENT","UNAUTHENTICATED","NOT_FOUND","RATE_LIMITED","UNAVAILABLE","INTERNAL"`,
		"t.s.declared": `"INVALID_ARGUMENT","UNAUTHENTICATED","PERMISSION_DENIED","NOT_FOUND","RATE_LIMITED","UNAVAILABLE","INTERNAL"`,
		"t.s.nothing":  `"INVALID_ARGUMENT","UNAUTHENTICATED","PERMISSION_DENIED","NOT_FOUND","ALREADY_EXISTS","FAILED_PRECONDITION","RATE_LIMITED","UNAVAILABLE","INTERNAL"`,
		"t.s.extra":    `"INVALID_ARGUMENT","UNAUTHENTICATED","NOT_FOUND","FAILED_PRECONDITION","RATE_LIMITED","UNAVAILABLE","INTERNAL"`,
	} {
		if c := codes(path); c != want {
			t.Errorf("%s errors %s, want %s", path, c, want)
		}
	}
	// The descriptor crosses GET /ops as JSON: it comes back whole.
	b, _ := json.Marshal(got["t.s.declared"])
	var back Descriptor
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != string(b) {
		t.Errorf("descriptor round trip:\n got %s\nwant %s", again, b)
	}
}

func TestReturnsIsOnlyForInterfaceHandlers(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Returns is only for handlers that return an interface") {
			t.Errorf("want a panic, got %v", r)
		}
	}()
	NewQuery("t.s.typed", Public, "", func(context.Context, *NoArgs) (string, error) { return "", nil }, Returns[int]())
}
