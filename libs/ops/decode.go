package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
)

// Arguments are declared as structs. Every field has a `json` name; optional
// fields are pointers (or slices), so "absent" and "zero" stay distinct. The `op`
// tag carries the rules, comma-separated:
//
//	required        present and not null
//	min=N, max=N    numeric bounds (inclusive); for strings and arrays, length bounds
//	id=kind         a well-formed id of that record kind (ids.Valid)
//	enum=a|b|c      one of the listed strings
//	nonblank        a string with something besides white space
//	multiline       long free text (comments, notes): newlines and tabs allowed
//
// money.Fils fields take AED numbers with at most two decimals, read exactly from
// the number's text. int fields take whole numbers; a negative zero reads as 0.
// Strings are limited to DefaultMaxString characters unless max says otherwise,
// arrays to DefaultMaxItems. Every string is normalised to Unicode NFC and may
// hold no control character (C0, DEL, C1; newline and tab only in multiline
// fields, where CRLF reads as a newline) and no bidirectional embedding,
// override or isolate (U+202A-U+202E, U+2066-U+2069): see CheckText.

const (
	DefaultMaxString = 10_000
	DefaultMaxItems  = 100
)

var filsType = reflect.TypeOf(money.Fils(0))

type rules struct {
	required, nonblank bool
	multiline          bool
	min, max           *float64
	idKind             string
	enum               []string
}

type field struct {
	name  string
	index []int // reflect's index path: a field of an embedded struct has two or more
	rules rules
}

type structSpec struct {
	fields []field
	byName map[string]*field
}

var specs sync.Map // reflect.Type -> *structSpec

// specOf parses and caches the argument spec of a struct type. It panics on a
// malformed declaration: that is a programming error, caught at registration.
func specOf(t reflect.Type) *structSpec {
	if s, ok := specs.Load(t); ok {
		return s.(*structSpec)
	}
	s := &structSpec{byName: map[string]*field{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			// An embedded struct without a json name: its fields are the
			// outer struct's, as encoding/json reads them (arguments several
			// operations share, declared once).
			for _, f := range specOf(sf.Type).fields {
				s.fields = append(s.fields, field{name: f.name, index: append([]int{i}, f.index...), rules: f.rules})
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" || name == "-" {
			panic(fmt.Sprintf("ops: %s.%s has no json name", t, sf.Name))
		}
		f := field{name: name, index: []int{i}, rules: parseRules(t, sf)}
		k := sf.Type.Kind()
		if !f.rules.required && k != reflect.Pointer && k != reflect.Slice {
			panic(fmt.Sprintf("ops: %s.%s is optional, so it must be a pointer or a slice", t, sf.Name))
		}
		checkType(t, sf.Name, sf.Type)
		s.fields = append(s.fields, f)
	}
	for i := range s.fields {
		if s.byName[s.fields[i].name] != nil {
			panic(fmt.Sprintf("ops: %s has two arguments named %s", t, s.fields[i].name))
		}
		s.byName[s.fields[i].name] = &s.fields[i]
	}
	specs.Store(t, s)
	return s
}

func checkType(owner reflect.Type, name string, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float64, reflect.Int, reflect.Int64:
	case reflect.Struct:
		specOf(t)
	default:
		panic(fmt.Sprintf("ops: %s.%s has unsupported type %s", owner, name, t))
	}
}

func parseRules(t reflect.Type, sf reflect.StructField) rules {
	var r rules
	tag := sf.Tag.Get("op")
	if tag == "" {
		return r
	}
	for _, part := range strings.Split(tag, ",") {
		k, v, _ := strings.Cut(part, "=")
		num := func() *float64 {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				panic(fmt.Sprintf("ops: %s.%s: bad %s", t, sf.Name, part))
			}
			return &x
		}
		switch k {
		case "required":
			r.required = true
		case "nonblank":
			r.nonblank = true
		case "multiline":
			r.multiline = true
		case "min":
			r.min = num()
		case "max":
			r.max = num()
		case "id":
			if !ids.Known(v) {
				panic(fmt.Sprintf("ops: %s.%s: unknown id kind %q", t, sf.Name, v))
			}
			r.idKind = v
		case "enum":
			r.enum = strings.Split(v, "|")
		default:
			panic(fmt.Sprintf("ops: %s.%s: unknown rule %q", t, sf.Name, k))
		}
	}
	return r
}

// Decode fills dst (a pointer to an argument struct) from raw JSON, strictly:
// unknown keys, wrong types, missing required fields and values out of range are
// INVALID_ARGUMENT errors naming the field. Absent or null args mean {}.
func Decode(raw []byte, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	return decodeStruct(raw, v, "args")
}

func join(path, name string) string {
	if path == "args" {
		return name
	}
	return path + "." + name
}

// msgUnknownArgument ends the refusal of an argument the declaration does not
// have ("<field>: unknown argument"): every release answers it so, and a
// calling Client recognises it (callees.go). When a declared argument's name
// is near, "; did you mean <name>?" follows, which a Client also recognises.
const msgUnknownArgument = "unknown argument"

// ReasonUnknownArgument is details.reason of an unknown argument's refusal.
const ReasonUnknownArgument = "unknown_argument"

// unknownArgumentError refuses the argument name (at path) that the struct s
// does not declare, naming the declared argument it most likely meant: the
// same name with a different case, the name without an Id or IDs ending
// (cityId for city), or one a typo away.
func unknownArgumentError(path, name string, s *structSpec) *apperr.Error {
	e := apperr.Invalid(path, msgUnknownArgument)
	if near := nearestArgument(name, s); near != "" {
		e.Message += "; did you mean " + near + "?"
		e.Details["suggestions"] = []string{near}
	}
	e.Details["reason"] = ReasonUnknownArgument
	return e
}

func nearestArgument(name string, s *structSpec) string {
	lower := strings.ToLower(name)
	stem := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(lower, "ids"), "id"), "_")
	// A typo: within two edits of a name of five letters or more, one edit
	// of four letters; shorter names only by their case or ending.
	best, bestD := "", min(3, max(0, len(name)-2))
	for i := range s.fields {
		f := strings.ToLower(s.fields[i].name)
		d := bestD + 1 // at least the difference in length: not measured beyond bestD (name is a request's, up to 6 MiB)
		if abs(len(lower)-len(f)) <= bestD {
			d = editDistance(lower, f) // nearest.go
		}
		if f == stem || f == stem+"s" || f == lower+"id" {
			d = 0
		}
		if d < bestD || d == bestD && best != "" && s.fields[i].name < best {
			best, bestD = s.fields[i].name, d
		}
	}
	return best
}

// notAString refuses a value that is not a string for a string argument. A
// number given for free text (a latitude, a phone number) shows the string to
// send instead: latitude: must be a string such as "25.2048", not a number.
func notAString(raw []byte, path string, r *rules) *apperr.Error {
	var x float64
	if r.idKind == "" && r.enum == nil && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && json.Unmarshal(raw, &x) == nil {
		return apperr.Invalid(path, "must be a string such as %q, not a number", string(raw))
	}
	return apperr.Invalid(path, "must be a string")
}

func decodeStruct(raw []byte, v reflect.Value, path string) error {
	if raw[0] != '{' {
		return apperr.Invalid(path, "must be an object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return apperr.Invalid(path, "must be a JSON object")
	}
	s := specOf(v.Type())
	// Report unknown keys in a stable order so the message is deterministic.
	var unknown []string
	for k := range m {
		if _, ok := s.byName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return unknownArgumentError(join(path, unknown[0]), unknown[0], s)
	}
	for i := range s.fields {
		f := &s.fields[i]
		fp := join(path, f.name)
		fr, ok := m[f.name]
		if !ok || string(bytes.TrimSpace(fr)) == "null" {
			if f.rules.required {
				return apperr.Invalid(fp, "is required")
			}
			continue
		}
		if err := decodeValue(bytes.TrimSpace(fr), v.FieldByIndex(f.index), fp, &f.rules); err != nil {
			return err
		}
	}
	return nil
}

func decodeValue(raw []byte, v reflect.Value, path string, r *rules) error {
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(raw, p.Elem(), path, r); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if v.Type() == filsType {
		x, err := number(raw, path)
		if err != nil {
			return err
		}
		if err := bounds(x, path, r); err != nil {
			return err
		}
		// Exactly from the text: 1e-300 is not 0 fils, it is too precise.
		f, err := money.ParseAED(string(raw))
		if err != nil {
			return apperr.Invalid(path, "%v", err)
		}
		v.SetInt(int64(f))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return notAString(raw, path, r)
		}
		return checkString(s, path, r, v)
	case reflect.Bool:
		switch string(raw) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return apperr.Invalid(path, "must be a boolean")
		}
		return nil
	case reflect.Float64:
		x, err := number(raw, path)
		if err != nil {
			return err
		}
		v.SetFloat(x)
		return bounds(x, path, r)
	case reflect.Int, reflect.Int64:
		x, err := number(raw, path)
		if err != nil {
			return err
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return apperr.Invalid(path, "must be a whole number")
		}
		v.SetInt(int64(x))
		return bounds(x, path, r)
	case reflect.Slice:
		if raw[0] != '[' {
			return apperr.Invalid(path, "must be an array")
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return apperr.Invalid(path, "must be an array")
		}
		maxItems := float64(DefaultMaxItems)
		if r.max != nil {
			maxItems = *r.max
		}
		if float64(len(items)) > maxItems {
			return apperr.Invalid(path, "must have at most %v items", maxItems)
		}
		if r.min != nil && float64(len(items)) < *r.min {
			return apperr.Invalid(path, "must have at least %v items", *r.min)
		}
		out := reflect.MakeSlice(v.Type(), len(items), len(items))
		// Element rules: ids, enums and blankness apply to each element; the length
		// bounds above were the array's own.
		er := &rules{idKind: r.idKind, enum: r.enum, nonblank: r.nonblank, multiline: r.multiline}
		for i, it := range items {
			it = bytes.TrimSpace(it)
			ep := fmt.Sprintf("%s[%d]", path, i)
			if string(it) == "null" {
				return apperr.Invalid(ep, "must not be null")
			}
			if err := decodeValue(it, out.Index(i), ep, er); err != nil {
				return err
			}
		}
		v.Set(out)
		return nil
	case reflect.Struct:
		return decodeStruct(raw, v, path)
	}
	return apperr.Invalid(path, "unsupported value")
}

func number(raw []byte, path string) (float64, error) {
	c := raw[0]
	if c != '-' && (c < '0' || c > '9') {
		return 0, apperr.Invalid(path, "must be a number")
	}
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil {
		return 0, apperr.Invalid(path, "must be a finite number")
	}
	if x == 0 {
		x = 0 // -0 is stored and shown as 0
	}
	return x, nil
}

func bounds(x float64, path string, r *rules) error {
	if r.min != nil && x < *r.min {
		return apperr.Invalid(path, "must be at least %v", *r.min)
	}
	if r.max != nil && x > *r.max {
		return apperr.Invalid(path, "must be at most %v", *r.max)
	}
	return nil
}

// CheckText applies the text rules every decoded string obeys, and returns s
// normalised to NFC: no control characters (newline and tab only when multiline,
// with CRLF read as a newline) and no bidirectional embeddings, overrides or
// isolates, which can make stored text display as something else.
func CheckText(s, path string, multiline bool) (string, error) {
	if multiline {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	for _, c := range s {
		switch {
		case multiline && (c == '\n' || c == '\t'):
		case c < 0x20 || (c >= 0x7f && c <= 0x9f):
			return "", apperr.Invalid(path, "must not contain control characters (found U+%04X)", c)
		case (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069):
			return "", apperr.Invalid(path, "must not contain bidirectional override characters (found U+%04X)", c)
		}
	}
	return norm.NFC.String(s), nil
}

func checkString(s, path string, r *rules, v reflect.Value) error {
	s, err := CheckText(s, path, r.multiline)
	if err != nil {
		return err
	}
	n := utf8.RuneCountInString(s)
	maxLen := float64(DefaultMaxString)
	if r.max != nil {
		maxLen = *r.max
	}
	if float64(n) > maxLen {
		return apperr.Invalid(path, "must be at most %v characters", maxLen)
	}
	if r.min != nil && float64(n) < *r.min {
		return apperr.Invalid(path, "must be at least %v characters", *r.min)
	}
	if r.nonblank && strings.TrimSpace(s) == "" {
		return apperr.Invalid(path, "must not be empty")
	}
	if r.idKind != "" && !ids.Valid(r.idKind, s) {
		// The shape, which a caller can check, beside the kind.
		prefix, _ := ids.Prefix(r.idKind)
		return apperr.Invalid(path, "is not a valid %s id (%s_ followed by 24 hex digits)", r.idKind, prefix)
	}
	if len(r.enum) > 0 && !slices.Contains(r.enum, s) {
		return apperr.Invalid(path, "must be one of %s", strings.Join(r.enum, ", "))
	}
	v.SetString(s)
	return nil
}
