package ops

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
)

type settings struct {
	MinPayout *money.Fils `json:"minPayoutAmount" op:"min=0"`
	HoldDays  *int        `json:"pendingBalanceHoldDays" op:"min=0,max=365"`
}

type pageOpts struct {
	NumItems int     `json:"numItems" op:"required,min=1"`
	Cursor   *string `json:"cursor"`
}

type sampleArgs struct {
	StoreID  string      `json:"storeId" op:"required,id=stores"`
	Rating   int         `json:"rating" op:"required,min=1,max=5"`
	Title    *string     `json:"title" op:"max=200"`
	Reason   *string     `json:"reason" op:"enum=spam|fake"`
	Rate     *float64    `json:"rate" op:"min=0,max=1"`
	Amount   *money.Fils `json:"amount" op:"min=0.01"`
	Photos   []string    `json:"photoIds" op:"id=_storage,max=3"`
	Flag     *bool       `json:"flag"`
	Name     *string     `json:"name" op:"nonblank"`
	Settings *settings   `json:"walletSettings"`
	Page     *pageOpts   `json:"paginationOpts"`
}

func TestDecodeAcceptsWellFormedArgs(t *testing.T) {
	store, photo := ids.New("stores"), ids.New("_storage")
	var a sampleArgs
	raw := `{"storeId":"` + store + `","rating":5,"title":"Great","reason":"fake","rate":0.05,"amount":12.5,
		"photoIds":["` + photo + `"],"flag":false,"walletSettings":{"pendingBalanceHoldDays":7},"paginationOpts":{"numItems":10,"cursor":null}}`
	if err := Decode([]byte(raw), &a); err != nil {
		t.Fatal(err)
	}
	if a.StoreID != store || a.Rating != 5 || *a.Title != "Great" || *a.Rate != 0.05 || *a.Amount != 1250 ||
		len(a.Photos) != 1 || a.Flag == nil || *a.Flag || a.Settings.MinPayout != nil || *a.Settings.HoldDays != 7 ||
		a.Page.NumItems != 10 || a.Page.Cursor != nil || a.Name != nil {
		t.Fatalf("decoded %+v", a)
	}
}

func TestDecodeRejectsWithTheFieldNamed(t *testing.T) {
	store := `"` + ids.New("stores") + `"`
	base := `"storeId":` + store + `,"rating":3`
	cases := map[string]string{
		`[]`:                               "args: must be an object",
		`"x"`:                              "args: must be an object",
		`{"rating":3}`:                     "storeId: is required",
		`{"storeId":null,"rating":3}`:      "storeId: is required",
		`{` + base + `,"bogus":1}`:         "bogus: unknown argument",
		`{"storeId":"sto_123","rating":3}`: "storeId: is not a valid stores id (sto_ followed by 24 hex digits)",
		`{"storeId":"` + ids.New("areas") + `","rating":3}`:             "storeId: is not a valid stores id (sto_ followed by 24 hex digits)",
		`{"storeId":` + store + `,"rating":"5"}`:                        "rating: must be a number",
		`{"storeId":` + store + `,"rating":4.5}`:                        "rating: must be a whole number",
		`{"storeId":` + store + `,"rating":6}`:                          "rating: must be at most 5",
		`{"storeId":` + store + `,"rating":0}`:                          "rating: must be at least 1",
		`{"storeId":` + store + `,"rating":1e999}`:                      "rating: must be a finite number",
		`{` + base + `,"title":5}`:                                      `title: must be a string such as "5", not a number`,
		`{` + base + `,"title":25.2048}`:                                `title: must be a string such as "25.2048", not a number`,
		`{` + base + `,"title":true}`:                                   "title: must be a string",
		`{"storeId":5,"rating":3}`:                                      "storeId: must be a string",
		`{` + base + `,"reason":1}`:                                     "reason: must be a string",
		`{` + base + `,"storeID":1}`:                                    "storeID: unknown argument; did you mean storeId?",
		`{` + base + `,"titel":"x"}`:                                    "titel: unknown argument; did you mean title?",
		`{` + base + `,"photos":[]}`:                                    "photos: unknown argument; did you mean photoIds?",
		`{` + base + `,"title":"` + strings.Repeat("a", 201) + `"}`:     "title: must be at most 200 characters",
		`{` + base + `,"reason":"rude"}`:                                "reason: must be one of spam, fake",
		`{` + base + `,"rate":1.5}`:                                     "rate: must be at most 1",
		`{` + base + `,"rate":-0.1}`:                                    "rate: must be at least 0",
		`{` + base + `,"amount":0}`:                                     "amount: must be at least 0.01",
		`{` + base + `,"amount":1.001}`:                                 "amount: must have at most two decimals",
		`{` + base + `,"photoIds":"x"}`:                                 "photoIds: must be an array",
		`{` + base + `,"photoIds":["bad"]}`:                             "photoIds[0]: is not a valid _storage id (stg_ followed by 24 hex digits)",
		`{` + base + `,"photoIds":[null]}`:                              "photoIds[0]: must not be null",
		`{` + base + `,"flag":"true"}`:                                  "flag: must be a boolean",
		`{` + base + `,"name":"   "}`:                                   "name: must not be empty",
		`{` + base + `,"walletSettings":{"x":1}}`:                       "walletSettings.x: unknown argument",
		`{` + base + `,"walletSettings":{"pendingBalanceHoldDays":-1}}`: "walletSettings.pendingBalanceHoldDays: must be at least 0",
		`{` + base + `,"walletSettings":{"minPayoutAmount":-5}}`:        "walletSettings.minPayoutAmount: must be at least 0",
		`{` + base + `,"paginationOpts":{}}`:                            "paginationOpts.numItems: is required",
		`{` + base + `,"paginationOpts":[1]}`:                           "paginationOpts: must be an object",
		`{` + base + `,"title":"a"`:                                     "args: must be a JSON object",
	}
	for raw, want := range cases {
		var a sampleArgs
		err := Decode([]byte(raw), &a)
		e := apperr.From(err)
		if err == nil || e.Code != apperr.InvalidArgument || e.Message != want {
			t.Errorf("%s\n  got  %v\n  want %s", raw, err, want)
		}
	}
}

func TestDecodeEmptyArgsMeansEmptyObject(t *testing.T) {
	var a struct {
		X *string `json:"x"`
	}
	for _, raw := range []string{"", "null", " {} "} {
		if err := Decode([]byte(raw), &a); err != nil {
			t.Errorf("%q: %v", raw, err)
		}
	}
}

func TestBadDeclarationsPanicAtRegistration(t *testing.T) {
	type optionalNotPointer struct {
		X string `json:"x"`
	}
	type noJSON struct {
		X string `op:"required"`
	}
	type unknownRule struct {
		X string `json:"x" op:"required,shiny"`
	}
	for name, f := range map[string]func(){
		"optional":     func() { specOf(typeOf[optionalNotPointer]()) },
		"no json":      func() { specOf(typeOf[noJSON]()) },
		"unknown rule": func() { specOf(typeOf[unknownRule]()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

type textArgs struct {
	Name    *string     `json:"name" op:"max=5"`
	Comment *string     `json:"comment" op:"multiline"`
	Tags    []string    `json:"tags"`
	Amount  *money.Fils `json:"amount"`
	Rate    *float64    `json:"rate"`
	Count   *int        `json:"count"`
}

func TestDecodeRefusesControlAndBidiCharacters(t *testing.T) {
	for raw, field := range map[string]string{
		`{"name":"a\u0000b"}`:        "name",
		`{"name":"\u001b[31mred"}`:   "name",
		`{"name":"abc\u007f"}`:       "name",
		`{"name":"a\u0085b"}`:        "name",
		`{"name":"a\nb"}`:            "name",
		`{"name":"a\tb"}`:            "name",
		`{"name":"evil\u202Etxt"}`:   "name",
		`{"name":"x\u2066y"}`:        "name",
		`{"comment":"a\u0000b"}`:     "comment",
		`{"comment":"a\rb"}`:         "comment",
		`{"comment":"a\u202Eb"}`:     "comment",
		`{"tags":["ok","a\u0007b"]}`: "tags[1]",
	} {
		var a textArgs
		err := Decode([]byte(raw), &a)
		if err == nil || apperr.CodeOf(err) != apperr.InvalidArgument || apperr.From(err).Details["field"] != field {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT naming %s", raw, err, field)
		}
	}
	var a textArgs
	if err := Decode([]byte(`{"comment":"line one\r\nline two\n\tindented","name":"مرحبا"}`), &a); err != nil {
		t.Fatal(err)
	}
	if *a.Comment != "line one\nline two\n\tindented" || *a.Name != "مرحبا" {
		t.Fatalf("decoded %q %q", *a.Comment, *a.Name)
	}
}

func TestDecodeNormalisesToNFC(t *testing.T) {
	var a textArgs
	// "Café" with a combining acute accent: five code points, four after NFC
	// (so it also fits max=5 only after normalisation).
	if err := Decode([]byte(`{"name":"Cafe\u0301s"}`), &a); err != nil {
		t.Fatal(err)
	}
	if *a.Name != "Caf\u00e9s" {
		t.Fatalf("name %q is not NFC", *a.Name)
	}
}

func TestDecodeAmountsAreExactAndZeroIsPositive(t *testing.T) {
	for _, raw := range []string{`{"amount":1e-300}`, `{"amount":0.001}`, `{"amount":10.005}`, `{"amount":-1e-7}`} {
		var a textArgs
		if err := Decode([]byte(raw), &a); err == nil || apperr.From(err).Details["field"] != "amount" {
			t.Errorf("%s: got %v (%v), want INVALID_ARGUMENT naming amount", raw, err, a.Amount)
		}
	}
	var a textArgs
	if err := Decode([]byte(`{"amount":-0,"rate":-0,"count":-0}`), &a); err != nil {
		t.Fatal(err)
	}
	if *a.Amount != 0 || math.Signbit(*a.Rate) || *a.Count != 0 {
		t.Fatalf("negative zero kept: %v %v %v", *a.Amount, *a.Rate, *a.Count)
	}
	if b, _ := json.Marshal(a.Rate); string(b) != "0" {
		t.Fatalf("rate -0 is shown as %s", b)
	}
	if err := Decode([]byte(`{"amount":12.50}`), &a); err != nil || *a.Amount != 1250 {
		t.Fatalf("12.50: %v %v", *a.Amount, err)
	}
}

// sharedFilter is arguments two operations share, embedded in each.
type sharedFilter struct {
	Status *string `json:"status" op:"enum=open|closed"`
	From   *int64  `json:"from" op:"min=0"`
}

type embeddingArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	sharedFilter
	Sort *string `json:"sort" op:"enum=newest|oldest"`
}

// TestDecodeEmbeddedArguments: an embedded struct's fields are the outer
// struct's arguments, in place, with their rules (an unknown key is still
// refused); two arguments of one name panic at registration.
func TestDecodeEmbeddedArguments(t *testing.T) {
	store := ids.New("stores")
	var a embeddingArgs
	if err := Decode([]byte(`{"storeId":"`+store+`","status":"open","from":5,"sort":"oldest"}`), &a); err != nil {
		t.Fatal(err)
	}
	if a.StoreID != store || a.Status == nil || *a.Status != "open" || a.From == nil || *a.From != 5 || a.Sort == nil || *a.Sort != "oldest" {
		t.Fatalf("decoded %+v", a)
	}
	var names []string
	for _, f := range specOf(typeOf[embeddingArgs]()).fields {
		names = append(names, f.name)
	}
	if strings.Join(names, ",") != "storeId,status,from,sort" {
		t.Fatalf("arguments %v", names)
	}
	for _, c := range []struct{ raw, field string }{
		{`{"storeId":"` + store + `","status":"lost"}`, "status"},
		{`{"storeId":"` + store + `","from":-1}`, "from"},
		{`{"storeId":"` + store + `","to":1}`, "to"},
	} {
		var b embeddingArgs
		if e := apperr.From(Decode([]byte(c.raw), &b)); e == nil || e.Code != apperr.InvalidArgument || !strings.HasPrefix(e.Message, c.field+": ") {
			t.Errorf("%s: %+v", c.raw, e)
		}
	}
	type twice struct {
		sharedFilter
		Status *string `json:"status"`
	}
	defer func() {
		if recover() == nil {
			t.Error("two arguments named status: no panic")
		}
	}()
	specOf(typeOf[twice]())
}
