package apischema

import (
	"encoding/json"
	"strings"
	"testing"

	"marketplace/libs/contracts"
)

func TestAddEnumMeanings(t *testing.T) {
	enums := []contracts.Enum{
		{Name: "orderStatus", Values: []contracts.EnumValue{{Value: "pending", Meaning: "placed"}, {Value: "delivered", Meaning: "handed over"}}},
		{Name: "tier", Values: []contracts.EnumValue{{Value: "basic", Meaning: "the basic tier"}}},
	}
	doc := `{"components":{"schemas":{
		"ErrorCode":{"enum":["NOT_FOUND"]},
		"Order":{"type":"object","properties":{"status":{"type":"string","enum":["pending","delivered"]},"from":{"enum":["pending",null]}}}
	}},"openapi":"3.1.0"}`
	out, err := AddEnumMeanings([]byte(doc), enums)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	m, _ := got[MeaningsKey].(map[string]any)
	if len(m) != 1 || m["orderStatus"].(map[string]any)["delivered"] != "handed over" {
		t.Errorf("meanings = %v, want orderStatus's only (tier is not used)", m)
	}
	if got["openapi"] != "3.1.0" || got["components"] == nil {
		t.Errorf("the rest of the document changed: %s", out)
	}

	// A value set no declared enum covers is refused, naming where it is.
	bad := `{"components":{"schemas":{"Order":{"properties":{"status":{"enum":["pending","returned"]}}}}}}`
	if _, err := AddEnumMeanings([]byte(bad), enums); err == nil || !strings.Contains(err.Error(), "Order/properties/status") {
		t.Errorf("an undeclared value: err = %v, want it refused naming Order/properties/status", err)
	}
	// A document without enums is unchanged.
	plain := `{"openapi":"3.1.0"}`
	if out, err := AddEnumMeanings([]byte(plain), enums); err != nil || string(out) != plain {
		t.Errorf("no enums: %s, %v", out, err)
	}
}
