package ops

import (
	"bytes"
	"context"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
)

func typeOf[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

// FuzzDecode: no input makes the decoder panic or return anything but success or
// INVALID_ARGUMENT. The seed corpus runs in every `go test`.
func FuzzDecode(f *testing.F) {
	store := ids.New("stores")
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"s"`, `1`, `{"storeId":"` + store + `","rating":3}`,
		`{"storeId":"` + store + `","rating":3,"photoIds":[],"walletSettings":{"minPayoutAmount":1.25},"paginationOpts":{"numItems":1,"cursor":"abc"}}`,
		`{"rating":-0}`, `{"rating":1e308}`, `{"rating":9007199254740993}`, `{"amount":1e-7}`, `{"photoIds":[[]]}`,
		`{"walletSettings":null}`, `{"title":"\ud800"}`, `{"a":1,"a":2}`, `{"storeId":"` + store + `","rating":3,}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a sampleArgs
		if err := Decode(raw, &a); err != nil && apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("%q gave %v", raw, err)
		}
	})
}

// FuzzServiceEndpoint: arbitrary request bodies through a service's HTTP endpoint
// never produce a 5xx.
func FuzzServiceEndpoint(f *testing.F) {
	reg := NewRegistry("sample", NewMutation("stores.sample.put", Public, "", func(ctx context.Context, a *sampleArgs) (any, error) {
		return a, nil
	}))
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error { return c.Status(500).SendString(err.Error()) }})
	(&Server{Registry: reg}).Mount(app)
	store := ids.New("stores")
	for _, s := range []string{
		`{"path":"stores.sample.put","args":{"storeId":"` + store + `","rating":2}}`,
		`{"path":"stores/sample:put","args":{"storeId":"` + store + `","rating":2},"format":"json"}`,
		`{"path":"stores.sample.put"}`, `{"path":""}`, `{}`, `[]`, ``, `{"path":"x","args":[]}`, `{"path":"stores.sample.put","args":{}}{}`,
		`{"path":"stores.sample.put","extra":1}`, `{"path":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/mutation", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode >= 500 {
			t.Fatalf("%q gave status %d", body, resp.StatusCode)
		}
	})
}
