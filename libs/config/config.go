// Package config loads one typed configuration struct per program from the
// environment. Fields carry `env:"NAME"`, optional `default:"..."`, `required:"true"`
// and `secret:"true"` tags; supported types are string, bool, int, float64,
// time.Duration and []string (comma-separated). A struct that has a
// `Validate() error` method is validated after loading.
//
// A secret (and a field tagged `file:"true"`, such as a user name kept next to
// its password) can also be given as a file: NAME_FILE holds the path, as
// Kubernetes and Docker mount secrets, so the value never sits in the
// environment. One trailing line break is not part of the value.
package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Load fills dst (a pointer to a struct) from getenv.
func Load(getenv func(string) string, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errors.New("config: Load needs a pointer to a struct")
	}
	var errs []error
	walk(v.Elem(), func(f reflect.StructField, fv reflect.Value) {
		name := f.Tag.Get("env")
		raw := getenv(name)
		if fromFile(f) {
			var err error
			if raw, err = Lookup(getenv, name); err != nil {
				errs = append(errs, err)
				return
			}
		}
		if raw == "" {
			raw = f.Tag.Get("default")
		}
		if raw == "" {
			if f.Tag.Get("required") == "true" {
				errs = append(errs, fmt.Errorf("%s is required", name))
			}
			return
		}
		if err := set(fv, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if val, ok := dst.(interface{ Validate() error }); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

// FileSuffix ends the name of the variable that gives a secret's file.
const FileSuffix = "_FILE"

// fromFile reports whether the field may be given as a file (NAME_FILE).
func fromFile(f reflect.StructField) bool {
	return f.Tag.Get("secret") == "true" || f.Tag.Get("file") == "true"
}

// Lookup reads one secret as Load does: the variable name, or the file
// NAME_FILE names; "" when neither is set. Programs that act on a secret
// before loading the settings that hold it (a development default when it is
// not set) read it with Lookup, so a file counts as set.
func Lookup(getenv func(string) string, name string) (string, error) {
	v, path := getenv(name), getenv(name+FileSuffix)
	if path == "" {
		return v, nil
	}
	if v != "" {
		return "", fmt.Errorf("set %s or %s%s, not both", name, name, FileSuffix)
	}
	v, err := readValueFile(path)
	if err != nil {
		return "", fmt.Errorf("%s%s: %w", name, FileSuffix, err)
	}
	return v, nil
}

// readValueFile reads a value from a file, without the line break that
// `echo` and most editors leave at its end.
func readValueFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}

// Describe renders the configuration for a start-up log line with secrets masked.
func Describe(cfg any) string {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var b strings.Builder
	walk(v, func(f reflect.StructField, fv reflect.Value) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		val := fmt.Sprint(fv.Interface())
		if fv.Kind() == reflect.Slice {
			val = strings.Trim(val, "[]")
		}
		if f.Tag.Get("secret") == "true" && !fv.IsZero() {
			val = "***"
		}
		fmt.Fprintf(&b, "%s=%s", f.Tag.Get("env"), val)
	})
	return b.String()
}

// walk visits every tagged field, descending into embedded and nested structs.
func walk(v reflect.Value, fn func(reflect.StructField, reflect.Value)) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Tag.Get("env") == "" {
			if fv.Kind() == reflect.Struct {
				walk(fv, fn)
			}
			continue
		}
		fn(f, fv)
	}
}

func set(fv reflect.Value, raw string) error {
	switch fv.Interface().(type) {
	case time.Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return err
		}
		fv.SetInt(int64(d))
		return nil
	case []string:
		var out []string
		for _, p := range strings.Split(raw, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		fv.Set(reflect.ValueOf(out))
		return nil
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(raw)
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return err
		}
		fv.SetFloat(x)
	default:
		return fmt.Errorf("unsupported type %s", fv.Type())
	}
	return nil
}

// Variables lists the environment variables cfg (a struct or a pointer to
// one) reads, in field order: what the README's configuration table is held to.
func Variables(cfg any) []string {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var out []string
	walk(v, func(f reflect.StructField, _ reflect.Value) { out = append(out, f.Tag.Get("env")) })
	return out
}
