package ops

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/page"
)

// Schemas of arguments and return values, derived from the declarations by
// reflection, so that every operation (a new one included) describes itself
// to machines: the OpenAPI document, the typed TypeScript client and the API
// reference are generated from them (package apischema).
//
// A Schema is JSON Schema in the 2020-12 dialect OpenAPI 3.1 uses, limited to
// what Go values can be. Arguments follow the strict decoder (decode.go):
// objects are closed (unknown keys are refused), required fields and bounds
// come from the `op` rules, an optional field also takes null (read as
// absent), and money is a number of AED with at most two decimals. Return
// values follow encoding/json: a field is required unless `omitempty`, a
// pointer is nullable, and a type the schema cannot know (an interface,
// json.RawMessage, a type with its own MarshalJSON) is marked Unknown, which
// the tests refuse for every public operation. A return field whose Go type
// cannot say what it holds declares it with a `schema` tag (taggedSchema);
// `doc` and `pattern` tags add a description and a pattern (documents of
// bodies other programs send, such as the processor's webhook events).

// Types is a schema's "type": one name, or several (["string", "null"]).
type Types []string

// MarshalJSON writes one type as a string and several as an array.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// UnmarshalJSON reads either form.
func (t *Types) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = Types{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

// Has reports whether the type list holds name.
func (t Types) Has(name string) bool {
	for _, x := range t {
		if x == name {
			return true
		}
	}
	return false
}

// Prop is one property of an object schema.
type Prop struct {
	Name   string
	Schema *Schema
}

// Props are an object's properties in declaration order (kept on the wire,
// so generated clients list fields as the code declares them).
type Props []Prop

// MarshalJSON writes the properties as an object, in order.
func (p Props) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, pr := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(pr.Name)
		v, err := json.Marshal(pr.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of schemas, keeping its order.
func (p *Props) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("ops: properties must be an object")
	}
	var out Props
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return err
		}
		out = append(out, Prop{Name: name, Schema: &s})
	}
	*p = out
	return nil
}

// Get is the schema of the property name, or nil.
func (p Props) Get(name string) *Schema {
	for _, pr := range p {
		if pr.Name == name {
			return pr.Schema
		}
	}
	return nil
}

// Schema is a JSON Schema (2020-12) of a value.
type Schema struct {
	Type        Types    `json:"type,omitempty"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Format      string   `json:"format,omitempty"`
	Properties  Props    `json:"properties,omitempty"`
	Required    []string `json:"required,omitempty"`
	// AdditionalProperties is the schema of a map's values; Closed writes
	// additionalProperties: false (an object that refuses unknown keys).
	AdditionalProperties *Schema  `json:"-"`
	Closed               bool     `json:"-"`
	Items                *Schema  `json:"items,omitempty"`
	Enum                 []string `json:"enum,omitempty"`
	Minimum              *float64 `json:"minimum,omitempty"`
	Maximum              *float64 `json:"maximum,omitempty"`
	MultipleOf           *float64 `json:"multipleOf,omitempty"`
	MinLength            *int     `json:"minLength,omitempty"`
	MaxLength            *int     `json:"maxLength,omitempty"`
	MinItems             *int     `json:"minItems,omitempty"`
	MaxItems             *int     `json:"maxItems,omitempty"`
	Pattern              string   `json:"pattern,omitempty"`
	// IDKind is the record kind of an id argument (its pattern says the same).
	IDKind string `json:"x-id-kind,omitempty"`
	// Unknown says why nothing is known of the value (the Go type); a schema
	// with it accepts anything.
	Unknown string `json:"x-unknown,omitempty"`
}

type schemaJSON Schema // without the methods

// MarshalJSON adds additionalProperties, and null to the enum of a nullable
// schema: "enum" constrains every value, null included, so without it an
// optional enumerated argument sent as null (which the decoder reads as
// absent) would be refused by the schema.
func (s *Schema) MarshalJSON() ([]byte, error) {
	plain := (*schemaJSON)(s)
	var extra [][]byte
	if len(s.Enum) > 0 && s.Nullable() {
		c := *plain
		c.Enum, plain = nil, &c
		values := make([]any, 0, len(s.Enum)+1)
		for _, e := range s.Enum {
			values = append(values, e)
		}
		enum, err := json.Marshal(append(values, nil))
		if err != nil {
			return nil, err
		}
		extra = append(extra, append([]byte(`"enum":`), enum...))
	}
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, err
	}
	switch {
	case s.AdditionalProperties != nil:
		ap, err := json.Marshal(s.AdditionalProperties)
		if err != nil {
			return nil, err
		}
		extra = append(extra, append([]byte(`"additionalProperties":`), ap...))
	case s.Closed:
		extra = append(extra, []byte(`"additionalProperties":false`))
	}
	for _, e := range extra {
		if len(b) == 2 { // {}
			b = append(append([]byte{'{'}, e...), '}')
			continue
		}
		b = append(append(append(b[:len(b)-1:len(b)-1], ','), e...), '}')
	}
	return b, nil
}

// UnmarshalJSON reads additionalProperties too, and an enum's null (which
// the type's "null" already says) is left out of Enum.
func (s *Schema) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*schemaJSON)(s)); err != nil {
		return err
	}
	var ap struct {
		AP   json.RawMessage `json:"additionalProperties"`
		Enum []*string       `json:"enum"`
	}
	if err := json.Unmarshal(b, &ap); err != nil {
		return err
	}
	if ap.Enum != nil {
		s.Enum = s.Enum[:0]
		for _, e := range ap.Enum {
			if e != nil {
				s.Enum = append(s.Enum, *e)
			}
		}
	}
	switch a := bytes.TrimSpace(ap.AP); {
	case len(a) == 0, string(a) == "true":
	case string(a) == "false":
		s.Closed = true
	default:
		s.AdditionalProperties = new(Schema)
		return json.Unmarshal(a, s.AdditionalProperties)
	}
	return nil
}

// Nullable reports whether the schema admits null.
func (s *Schema) Nullable() bool { return s.Type.Has("null") }

// Walk calls f on s and every schema inside it, with its JSON path ("" for
// s, then ".field", "[]", "{}" for a map's values).
func (s *Schema) Walk(f func(path string, s *Schema)) { s.walk("", f) }

func (s *Schema) walk(path string, f func(string, *Schema)) {
	if s == nil {
		return
	}
	f(path, s)
	for _, p := range s.Properties {
		p.Schema.walk(path+"."+p.Name, f)
	}
	s.Items.walk(path+"[]", f)
	s.AdditionalProperties.walk(path+"{}", f)
}

// Null is the return type of an operation that returns nothing: its handler
// returns nil, answered as JSON null.
type Null *struct{}

var (
	nullType          = reflect.TypeOf(Null(nil))
	timeType          = reflect.TypeOf(time.Time{})
	rawType           = reflect.TypeOf(json.RawMessage{})
	marshalerType     = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshalerType = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	pageOptsType      = reflect.TypeOf(page.Opts{})
)

// Titles of the pagination schemas, which generated clients map to their
// library's own types (Convex's PaginationOptions and PaginationResult).
const (
	TitlePaginationOpts   = "PaginationOptions"
	TitlePaginationResult = "PaginationResult"
)

func ptr[T any](v T) *T { return &v }

func nullable(s *Schema) *Schema {
	if s.Unknown != "" || s.Nullable() {
		return s
	}
	s.Type = append(s.Type, "null")
	return s
}

var argSchemas, resultSchemas sync.Map // reflect.Type -> *Schema

// ArgsSchemaOf is the schema of an argument struct type, as the decoder reads
// it. It panics on a type the decoder refuses (declarations are checked at
// registration, so that cannot happen for a declared operation).
func ArgsSchemaOf(t reflect.Type) *Schema {
	if s, ok := argSchemas.Load(t); ok {
		return s.(*Schema)
	}
	s := argStruct(t)
	argSchemas.Store(t, s)
	return s
}

func argStruct(t reflect.Type) *Schema {
	s := &Schema{Type: Types{"object"}, Closed: true, Properties: Props{}}
	if t == pageOptsType {
		s.Title = TitlePaginationOpts
	}
	for _, f := range specOf(t).fields {
		fs := argValue(t.FieldByIndex(f.index).Type, &f.rules)
		if f.rules.required {
			s.Required = append(s.Required, f.name)
		} else {
			fs = nullable(fs) // null reads as absent
		}
		s.Properties = append(s.Properties, Prop{Name: f.name, Schema: fs})
	}
	return s
}

func argValue(t reflect.Type, r *rules) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == filsType {
		s := &Schema{Type: Types{"number"}, Description: "AED, at most two decimals", MultipleOf: ptr(0.01),
			Minimum: ptr(float64(-money.MaxAED)), Maximum: ptr(float64(money.MaxAED))}
		bound(s, r)
		return s
	}
	switch t.Kind() {
	case reflect.String:
		s := &Schema{Type: Types{"string"}, MaxLength: ptr(DefaultMaxString)}
		if r.max != nil {
			s.MaxLength = ptr(int(*r.max))
		}
		if r.min != nil {
			s.MinLength = ptr(int(*r.min))
		}
		if r.nonblank {
			s.Pattern = `\S`
			if s.MinLength == nil {
				s.MinLength = ptr(1)
			}
		}
		if r.idKind != "" {
			p, _ := ids.Prefix(r.idKind)
			s.IDKind, s.Pattern = r.idKind, "^"+p+"_[0-9a-fA-F]{24}$"
		}
		if len(r.enum) > 0 {
			s.Enum = append([]string(nil), r.enum...)
		}
		if r.multiline {
			s.Description = "multi-line text"
		}
		return s
	case reflect.Bool:
		return &Schema{Type: Types{"boolean"}}
	case reflect.Float64:
		s := &Schema{Type: Types{"number"}}
		bound(s, r)
		return s
	case reflect.Int, reflect.Int64:
		s := &Schema{Type: Types{"integer"}, Minimum: ptr(-float64(1 << 53)), Maximum: ptr(float64(1 << 53))}
		bound(s, r)
		return s
	case reflect.Slice:
		s := &Schema{Type: Types{"array"}, MaxItems: ptr(DefaultMaxItems)}
		if r.max != nil {
			s.MaxItems = ptr(int(*r.max))
		}
		if r.min != nil {
			s.MinItems = ptr(int(*r.min))
		}
		s.Items = argValue(t.Elem(), &rules{idKind: r.idKind, enum: r.enum, nonblank: r.nonblank, multiline: r.multiline})
		return s
	case reflect.Struct:
		return argStruct(t)
	}
	panic(fmt.Sprintf("ops: no argument schema for %s", t))
}

func bound(s *Schema, r *rules) {
	if r.min != nil {
		s.Minimum = ptr(*r.min)
	}
	if r.max != nil {
		s.Maximum = ptr(*r.max)
	}
}

// ResultSchemaOf is the schema of a return type as encoding/json writes it.
func ResultSchemaOf(t reflect.Type) *Schema {
	if s, ok := resultSchemas.Load(t); ok {
		return s.(*Schema)
	}
	s := resultValue(t, map[reflect.Type]bool{})
	resultSchemas.Store(t, s)
	return s
}

func unknown(t reflect.Type, why string) *Schema {
	return &Schema{Unknown: fmt.Sprintf("%s: %s", t, why)}
}

func resultValue(t reflect.Type, seen map[reflect.Type]bool) *Schema {
	switch {
	case t == nullType:
		return &Schema{Type: Types{"null"}}
	case t == timeType:
		return &Schema{Type: Types{"string"}, Format: "date-time"}
	case t == rawType:
		return unknown(t, "raw JSON")
	case t == filsType:
		// Fils marshal as a whole number of fils, not as AED: views convert.
		return &Schema{Type: Types{"integer"}, Description: "fils (hundredths of AED)"}
	case t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)):
		return unknown(t, "has its own MarshalJSON")
	case t.Kind() != reflect.Pointer && (t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)):
		return &Schema{Type: Types{"string"}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(cloneSchema(resultValue(t.Elem(), seen)))
	case reflect.String:
		return &Schema{Type: Types{"string"}}
	case reflect.Bool:
		return &Schema{Type: Types{"boolean"}}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Schema{Type: Types{"integer"}}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: Types{"integer"}, Minimum: ptr(0.0)}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: Types{"number"}}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: Types{"string"}, Description: "base64"}
		}
		return &Schema{Type: Types{"array"}, Items: resultValue(t.Elem(), seen)}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return unknown(t, "map keys are not strings")
		}
		return &Schema{Type: Types{"object"}, AdditionalProperties: resultValue(t.Elem(), seen)}
	case reflect.Struct:
		if seen[t] {
			return unknown(t, "recursive type")
		}
		seen[t] = true
		defer delete(seen, t)
		s := &Schema{Type: Types{"object"}, Properties: Props{}}
		if t.PkgPath() == pageOptsType.PkgPath() && strings.HasPrefix(t.Name(), "Result[") {
			s.Title = TitlePaginationResult
		}
		resultFields(t, s, seen)
		return s
	case reflect.Interface:
		return unknown(t, "an interface: give the handler a concrete return type, or declare it with ops.Returns")
	}
	return unknown(t, "not a JSON value")
}

// resultFields adds the fields of struct t as encoding/json writes them:
// exported fields, by their json name or Go name, embedded structs without a
// name flattened (a field of the outer struct wins over an embedded one).
func resultFields(t reflect.Type, s *Schema, seen map[reflect.Type]bool) {
	direct := map[string]bool{} // the names of t's own fields, which win over embedded ones
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Tag.Get("json") == "-" || (sf.Anonymous && name == "") || !sf.IsExported() {
			continue
		}
		direct[cmp.Or(name, sf.Name)] = true
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				inner := &Schema{Properties: Props{}}
				resultFields(et, inner, seen)
				for _, p := range inner.Properties {
					if direct[p.Name] || s.Properties.Get(p.Name) != nil {
						continue
					}
					s.Properties = append(s.Properties, p)
					// A field of an embedded pointer is absent when it is nil.
					if sf.Type.Kind() != reflect.Pointer && contains(inner.Required, p.Name) {
						s.Required = append(s.Required, p.Name)
					}
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if s.Properties.Get(name) != nil {
			continue
		}
		var fs *Schema
		switch declared := sf.Tag.Get("schema"); {
		case declared != "":
			fs = taggedSchema(sf.Type, declared)
		case hasOpt(opts, "string"):
			fs = &Schema{Type: Types{"string"}}
		default:
			fs = resultValue(sf.Type, seen)
		}
		if d, p := sf.Tag.Get("doc"), sf.Tag.Get("pattern"); d != "" || p != "" {
			fs = cloneSchema(fs)
			fs.Description, fs.Pattern = cmp.Or(d, fs.Description), cmp.Or(p, fs.Pattern)
		}
		if e := sf.Tag.Get("enum"); e != "" {
			fs = enumSchema(sf.Type, fs, e)
		}
		s.Properties = append(s.Properties, Prop{Name: name, Schema: fs})
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") {
			s.Required = append(s.Required, name)
		}
	}
}

// enumSchema is fs restricted to the values an `enum` tag lists ("a|b|c"): a
// string field of an answer or an event payload whose value set is part of
// the contract (libs/contracts.Enums says what each value means). An
// omitempty field's empty value is absent, so it is never listed.
func enumSchema(t reflect.Type, fs *Schema, tag string) *Schema {
	if t.Kind() != reflect.String {
		return unknown(t, fmt.Sprintf("enum tag %q on a field that is not a string", tag))
	}
	fs = cloneSchema(fs)
	fs.Enum = strings.Split(tag, "|")
	return fs
}

// taggedSchema is the schema a `schema` tag declares for a return field whose
// Go type cannot say it (an interface holding values of several kinds): "any"
// (any JSON value), or the JSON types it may hold, separated by |
// ("null|number|boolean|object").
func taggedSchema(t reflect.Type, tag string) *Schema {
	if tag == "any" {
		return &Schema{Description: "any JSON value"}
	}
	s := &Schema{}
	for _, name := range strings.Split(tag, "|") {
		switch name {
		case "null", "boolean", "number", "integer", "string", "array", "object":
			s.Type = append(s.Type, name)
		default:
			return unknown(t, fmt.Sprintf("schema tag %q: %q is not a JSON type", tag, name))
		}
	}
	return s
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cloneSchema copies the top level of s (nullable changes the copy's type
// only; the schemas inside are shared and never changed).
func cloneSchema(s *Schema) *Schema {
	c := *s
	c.Type = append(Types(nil), s.Type...)
	return &c
}

// Returns declares the return type of an operation whose handler returns an
// interface (any): the schema is derived from T. A handler with a concrete
// return type needs none (declaring another type is a programming error).
func Returns[T any]() Option {
	return func(op *Op) { op.resultType = reflect.TypeOf((*T)(nil)).Elem() }
}

// Deprecated marks an operation published beside its replacement for a
// deprecation window (a breaking change is made so: the new operation beside
// the old, the old one removed later in a major release of the contract);
// note says what replaces it and how long it stays. The OpenAPI document marks
// it deprecated, the TypeScript client @deprecated.
func Deprecated(note string) Option {
	return func(op *Op) { op.deprecated = note }
}

// Errors declares codes an operation answers beyond those its kind and
// access level imply (ErrorsOf): a query with a state rule, say.
func Errors(codes ...apperr.Code) Option {
	return func(op *Op) { op.errors = append(op.errors, codes...) }
}

// codeOrder is the contract's order of the codes (section 2).
var codeOrder = []apperr.Code{apperr.InvalidArgument, apperr.Unauthenticated, apperr.PermissionDenied, apperr.NotFound,
	apperr.AlreadyExists, apperr.FailedPrecondition, apperr.RateLimited, apperr.Unavailable, apperr.Internal}

// ErrorsOf lists the codes an operation of kind and access can answer, in the
// contract's order, with extra (declared with Errors) added:
//   - every operation: INVALID_ARGUMENT (arguments, body), UNAUTHENTICATED (a
//     presented token that does not verify is refused even on public
//     operations), NOT_FOUND (a referenced record; an unknown path),
//     RATE_LIMITED, UNAVAILABLE and INTERNAL;
//   - every operation that is not public: PERMISSION_DENIED (roles, owners,
//     someone else's record);
//   - every mutation: ALREADY_EXISTS (uniqueness rules) and
//     FAILED_PRECONDITION (state rules, a customer without a profile, an
//     Idempotency-Key whose twin is still running).
func ErrorsOf(kind Kind, access Access, extra []apperr.Code) []apperr.Code {
	has := map[apperr.Code]bool{
		apperr.InvalidArgument: true, apperr.Unauthenticated: true, apperr.NotFound: true,
		apperr.RateLimited: true, apperr.Unavailable: true, apperr.Internal: true,
	}
	if access != Public {
		has[apperr.PermissionDenied] = true
	}
	if kind == Mutation {
		has[apperr.AlreadyExists], has[apperr.FailedPrecondition] = true, true
	}
	for _, c := range extra {
		has[c] = true
	}
	var out []apperr.Code
	for _, c := range codeOrder {
		if has[c] {
			out = append(out, c)
		}
	}
	return out
}
