package apischema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"marketplace/libs/contracts"
)

// MeaningsKey is the top-level extension of a contract document that holds
// the meanings of the enums its schemas use: name -> value -> meaning.
const MeaningsKey = "x-enum-meanings"

// AddEnumMeanings adds MeaningsKey to doc (an OpenAPI document) with every
// enum of enums whose values one of doc's schemas lists. Every enumerated
// schema under components/schemas (the operations' arguments and answers,
// the event payloads; ErrorCode, the protocol's, aside) must list a subset of
// one declared enum's values; otherwise it is an error naming the schema, so
// that no value set enters a contract without its meanings.
func AddEnumMeanings(doc []byte, enums []contracts.Enum) ([]byte, error) {
	var d map[string]json.RawMessage
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("apischema: enum meanings: %w", err)
	}
	var comps struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	}
	if raw, ok := d["components"]; ok {
		if err := json.Unmarshal(raw, &comps); err != nil {
			return nil, fmt.Errorf("apischema: enum meanings: components: %w", err)
		}
	}
	used := map[string]bool{}
	var missing []string
	names := make([]string, 0, len(comps.Schemas))
	for n := range comps.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "ErrorCode" {
			continue
		}
		var v any
		if err := json.Unmarshal(comps.Schemas[n], &v); err != nil {
			return nil, fmt.Errorf("apischema: enum meanings: schema %s: %w", n, err)
		}
		walkEnums(v, n, func(where string, values []string) {
			e := enumCovering(enums, values)
			if e == nil {
				missing = append(missing, fmt.Sprintf("%s %v", where, values))
				return
			}
			used[e.Name] = true
		})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("apischema: enumerated values without declared meanings (add them to libs/contracts.Enums): %s", strings.Join(missing, "; "))
	}
	meanings := map[string]map[string]string{}
	for _, e := range enums {
		if !used[e.Name] {
			continue
		}
		m := map[string]string{}
		for _, v := range e.Values {
			m[v.Value] = v.Meaning
		}
		meanings[e.Name] = m
	}
	if len(meanings) == 0 {
		return doc, nil
	}
	raw, err := json.Marshal(meanings)
	if err != nil {
		return nil, err
	}
	d[MeaningsKey] = raw
	// Written and laid out as OpenAPI writes the document it was given
	// (docs/adr/0014): the published contracts stay under 1 MiB too.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return indentTo(buf.Bytes(), layoutDepth), nil
}

// walkEnums calls f with the string values of every enum keyword under v
// (null left out).
func walkEnums(v any, where string, f func(where string, values []string)) {
	switch x := v.(type) {
	case map[string]any:
		if list, ok := x["enum"].([]any); ok {
			var values []string
			for _, e := range list {
				if s, ok := e.(string); ok {
					values = append(values, s)
				}
			}
			f(where, values)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkEnums(x[k], where+"/"+k, f)
		}
	case []any:
		for i, e := range x {
			walkEnums(e, fmt.Sprintf("%s/%d", where, i), f)
		}
	}
}

// enumCovering is the first declared enum holding every one of values.
func enumCovering(enums []contracts.Enum, values []string) *contracts.Enum {
	for i := range enums {
		if len(values) > 0 && !slices.ContainsFunc(values, func(v string) bool {
			return !slices.ContainsFunc(enums[i].Values, func(ev contracts.EnumValue) bool { return ev.Value == v })
		}) {
			return &enums[i]
		}
	}
	return nil
}
