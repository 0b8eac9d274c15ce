package apischema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/ops"
)

// The internal contract holds the internal operations only, each a POST on
// /internal/<path> whose request body is its arguments and whose 200 answer
// is its return value.
func TestInternalContract(t *testing.T) {
	b, err := sample().InternalOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]struct {
			Post struct {
				Description string `json:"description"`
				Ext         struct {
					Callers []string `json:"callers"`
				} `json:"x-marketplace"`
				RequestBody struct {
					Required bool `json:"required"`
					Content  map[string]struct {
						Schema map[string]string `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Responses map[string]struct {
					Content map[string]struct {
						Schema map[string]string `json:"schema"`
					} `json:"content"`
				} `json:"responses"`
			} `json:"post"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || len(doc.Paths) != 1 {
		t.Fatalf("openapi %q, paths %v", doc.OpenAPI, doc.Paths)
	}
	p, ok := doc.Paths["/internal/stores.items.internalOnly"]
	if !ok {
		t.Fatalf("the internal operation is missing: %v", doc.Paths)
	}
	if got := p.Post.RequestBody.Content["application/json"].Schema["$ref"]; !p.Post.RequestBody.Required || got != "#/components/schemas/stores.items.internalOnly.Args" {
		t.Errorf("request body %v", p.Post.RequestBody)
	}
	if got := p.Post.Responses["200"].Content["application/json"].Schema["$ref"]; got != "#/components/schemas/stores.items.internalOnly.Returns" {
		t.Errorf("answer %q", got)
	}
	for _, name := range []string{"stores.items.internalOnly.Args", "stores.items.internalOnly.Returns"} {
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("no schema %s", name)
		}
	}
	// Its callers (ops.CalledBy), sorted, in x-marketplace and the description.
	if !slices.Equal(p.Post.Ext.Callers, []string{"payouts", "reviews"}) || !strings.Contains(p.Post.Description, "Only payouts, reviews may call it") {
		t.Errorf("callers %v, description %q", p.Post.Ext.Callers, p.Post.Description)
	}
	// An operation no service may call says so: callers is [], not absent.
	none := New([]Operation{{Service: "shop", Descriptor: ops.Descriptor{Path: "shop.files.check", Kind: ops.Query, Access: ops.Internal}}}, nil)
	b, err = none.InternalOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"callers":[]`) && !strings.Contains(string(b), `"callers": []`) {
		t.Errorf("no callers: %s", b)
	}
}

type payload struct {
	ID     string `json:"id"`
	Amount int64  `json:"amountFils"`
	Reason string `json:"reason,omitempty"`
}

// An event type is the 200 answer of GET /events/<type>, its payload's
// fields required unless omitempty (a consumer may rely on them), with its
// version and dataschema.
func TestEventsContract(t *testing.T) {
	b, err := EventsOpenAPI([]contractevents.Event{
		{Type: "thing.done", Topic: "things", Producer: "shop", Version: 1, Payload: reflect.TypeFor[payload]()},
		{Type: "thing.undone", Topic: "things", Producer: "shop", Version: 1, Payload: reflect.TypeFor[payload]()},
	})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Responses map[string]struct {
					Content map[string]struct {
						Schema map[string]string `json:"schema"`
					} `json:"content"`
				} `json:"responses"`
				Ext        map[string]any `json:"x-marketplace"`
				Deprecated bool           `json:"deprecated"`
			} `json:"get"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"thing.done", "thing.undone"} {
		p, ok := doc.Paths["/events/"+typ]
		if !ok {
			t.Fatalf("no path for %s: %v", typ, doc.Paths)
		}
		if got := p.Get.Responses["200"].Content["application/json"].Schema["$ref"]; got != "#/components/schemas/apischema.payload" {
			t.Errorf("%s: payload %q", typ, got)
		}
		if p.Get.Ext["topic"] != "things" || p.Get.Ext["producer"] != "shop" || p.Get.Ext["type"] != typ ||
			p.Get.Ext["version"] != 1.0 || p.Get.Ext["dataschema"] != "urn:marketplace:event:"+typ+":v1" || p.Get.Deprecated {
			t.Errorf("%s: x-marketplace %v, deprecated %v", typ, p.Get.Ext, p.Get.Deprecated)
		}
	}
	s := doc.Components.Schemas["apischema.payload"]
	slices.Sort(s.Required)
	if !slices.Equal(s.Required, []string{"amountFils", "id"}) || len(s.Properties) != 3 {
		t.Errorf("payload schema: required %v, properties %v", s.Required, s.Properties)
	}
}

type payloadV2 struct {
	ID     string `json:"id"`
	Amount string `json:"amount"`
}

// A new major version is a path of its own beside the old one, which is
// marked deprecated with the end of its window while it is still published.
func TestEventsContractVersions(t *testing.T) {
	b, err := EventsOpenAPI([]contractevents.Event{{Type: "thing.done", Topic: "things", Producer: "shop", Version: 2, Payload: reflect.TypeFor[payloadV2](),
		Older: []contractevents.EventVersion{{Version: 1, Payload: reflect.TypeFor[payload](), Until: "2030-01-31"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Get struct {
				OperationID string         `json:"operationId"`
				Deprecated  bool           `json:"deprecated"`
				Ext         map[string]any `json:"x-marketplace"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	v1, v2 := doc.Paths["/events/thing.done"].Get, doc.Paths["/events/thing.done/v2"].Get
	if len(doc.Paths) != 2 || v1.OperationID != "event.thing.done" || v2.OperationID != "event.thing.done.v2" {
		t.Fatalf("paths %+v", doc.Paths)
	}
	if !v1.Deprecated || v1.Ext["until"] != "2030-01-31" || v1.Ext["payload"] != "apischema.payload" || v1.Ext["dataschema"] != "urn:marketplace:event:thing.done:v1" {
		t.Errorf("version 1: %+v", v1)
	}
	if v2.Deprecated || v2.Ext["version"] != 2.0 || v2.Ext["payload"] != "apischema.payloadV2" || v2.Ext["dataschema"] != "urn:marketplace:event:thing.done:v2" {
		t.Errorf("version 2: %+v", v2)
	}
}
