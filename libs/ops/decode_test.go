package ops

import (
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
		`{"storeId":"sto_123","rating":3}`: "storeId: is not a valid stores id",
		`{"storeId":"` + ids.New("areas") + `","rating":3}`:             "storeId: is not a valid stores id",
		`{"storeId":` + store + `,"rating":"5"}`:                        "rating: must be a number",
		`{"storeId":` + store + `,"rating":4.5}`:                        "rating: must be a whole number",
		`{"storeId":` + store + `,"rating":6}`:                          "rating: must be at most 5",
		`{"storeId":` + store + `,"rating":0}`:                          "rating: must be at least 1",
		`{"storeId":` + store + `,"rating":1e999}`:                      "rating: must be a finite number",
		`{` + base + `,"title":5}`:                                      "title: must be a string",
		`{` + base + `,"title":"` + strings.Repeat("a", 201) + `"}`:     "title: must be at most 200 characters",
		`{` + base + `,"reason":"rude"}`:                                "reason: must be one of spam, fake",
		`{` + base + `,"rate":1.5}`:                                     "rate: must be at most 1",
		`{` + base + `,"rate":-0.1}`:                                    "rate: must be at least 0",
		`{` + base + `,"amount":0}`:                                     "amount: must be at least 0.01",
		`{` + base + `,"amount":1.001}`:                                 "amount: must have at most two decimals",
		`{` + base + `,"photoIds":"x"}`:                                 "photoIds: must be an array",
		`{` + base + `,"photoIds":["bad"]}`:                             "photoIds[0]: is not a valid _storage id",
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
