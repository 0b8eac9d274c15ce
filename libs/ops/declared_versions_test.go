package ops

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/version"
)

// TestOpsDeclaresContractVersions: GET /ops names the contract versions the
// binary was built with, unless the server is given others.
func TestOpsDeclaresContractVersions(t *testing.T) {
	for _, given := range []version.Contracts{{}, {Public: "2.0.0", Internal: "1.4.0", Events: "1.0.1"}} {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		(&Server{Registry: NewRegistry("shop"), Contracts: given}).Mount(app)
		resp, err := app.Test(httptest.NewRequest("GET", "/ops", nil))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Contracts version.Contracts `json:"contracts"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		want := given
		if want == (version.Contracts{}) {
			want = version.BuiltContracts()
		}
		if body.Contracts != want {
			t.Fatalf("GET /ops declares %+v, want %+v", body.Contracts, want)
		}
	}
}
