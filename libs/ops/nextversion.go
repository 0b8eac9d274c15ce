//go:build nextversion

package ops

import (
	"bytes"
	"encoding/json"
	"reflect"

	"marketplace/libs/apperr"
)

// The nextversion build tag makes this code the simulated next release of
// itself, for the mixed-versions test (make test-mixed-versions): what a
// compatible release would add, added to every operation at once rather
// than by editing each type.
//
//   - Every operation's answer that is a record (a Go struct, or a list of
//     them) carries one more field, nextField (NextAnswerField). A
//     dictionary (a Go map: ids to records, say) gets none: a key more there
//     would be an entry more, which no compatible release adds.
//   - Every internal operation declares and accepts one more optional
//     argument, nextArg: a string.
//   - Every call a Client makes sends nextArg: left out for a callee that
//     does not declare it (callees.go), as any new optional argument.
//
// Events get their field in libs/events (nextversion.go). The default build
// has none of it (nextversion_off.go: functions that return what they get).

const (
	// nextArg is the optional argument of every internal operation.
	nextArg = "nextVersionArg"
	// nextField is the field added to every answer.
	nextField = "nextVersionField"
	// nextValue is what a caller sends in nextArg and an answer holds in nextField.
	nextValue = "added by the next version"
)

// NextAnswerField is the field a nextversion build adds to every answer ("" in
// the default build).
const NextAnswerField = nextField

// withNextArg adds nextArg to a call's arguments object (null or absent
// arguments are {}).
func withNextArg(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	return withField(raw, nextArg)
}

// encodeAnswer is an operation's answer as JSON, with nextField in it when
// it is a record or a list of records.
func encodeAnswer(res any) ([]byte, error) {
	b, err := json.Marshal(res)
	if err != nil || len(b) == 0 {
		return b, err
	}
	t := reflect.TypeOf(res)
	switch {
	case isRecord(t):
		return withField(b, nextField), nil
	case t != nil && t.Kind() == reflect.Slice && isRecord(t.Elem()) && b[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return b, nil
		}
		for i, it := range items {
			items[i] = withField(it, nextField)
		}
		return json.Marshal(items)
	}
	return b, nil
}

// isRecord reports whether values of t are records: structs (or pointers to
// them), whose JSON objects a compatible release may add a field to.
func isRecord(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.Kind() == reflect.Struct
}

// withField adds key: nextValue first in a JSON object (other values are
// returned unchanged). A key already there is left as it is.
func withField(obj []byte, key string) []byte {
	if len(obj) < 2 || obj[0] != '{' {
		return obj
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(obj, &probe) != nil {
		return obj
	}
	if _, ok := probe[key]; ok {
		return obj
	}
	field, _ := json.Marshal(map[string]string{key: nextValue}) // {"key":"value"}
	rest := bytes.TrimSpace(obj[1:])
	out := append([]byte{}, field[:len(field)-1]...)
	if rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// acceptNextArg takes nextArg out of an internal operation's arguments, after
// checking it is a string, so the strict decoder sees the declared ones.
func acceptNextArg(access Access, raw *[]byte) error {
	b := bytes.TrimSpace(*raw)
	if access != Internal || len(b) == 0 || b[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil // the decoder says what is wrong
	}
	v, ok := m[nextArg]
	if !ok {
		return nil
	}
	var s *string
	if json.Unmarshal(v, &s) != nil {
		return apperr.Invalid(nextArg, "must be a string")
	}
	delete(m, nextArg)
	out, err := json.Marshal(m)
	if err != nil {
		return err
	}
	*raw = out
	return nil
}

// declareNext adds nextArg to an internal operation's declared arguments and
// nextField to the schema of an answer that is a record or a list of them.
func declareNext(d *Descriptor) {
	if d.Access == Internal {
		d.Args = append(d.Args, ArgDoc{Name: nextArg, Type: "string", Required: false})
		s := &Schema{Type: Types{"object"}, Closed: true}
		if d.ArgsSchema != nil {
			s = cloneSchema(d.ArgsSchema)
		}
		s.Properties = append(slicesClone(s.Properties), Prop{Name: nextArg, Schema: &Schema{Type: Types{"string", "null"},
			Description: "Added by the next version (build tag nextversion)."}})
		d.ArgsSchema = s
	}
	if d.Returns == nil {
		return
	}
	record := func(s *Schema) *Schema {
		if s == nil || !s.Type.Has("object") || s.Properties == nil {
			return s
		}
		c := cloneSchema(s)
		c.Properties = append(slicesClone(s.Properties), Prop{Name: nextField, Schema: &Schema{Type: Types{"string"},
			Description: "Added by the next version (build tag nextversion)."}})
		c.Required = append(append([]string(nil), s.Required...), nextField)
		return c
	}
	if d.Returns.Type.Has("array") && d.Returns.Items != nil {
		c := cloneSchema(d.Returns)
		c.Items = record(d.Returns.Items)
		d.Returns = c
		return
	}
	d.Returns = record(d.Returns)
}

func slicesClone(p Props) Props { return append(Props(nil), p...) }
