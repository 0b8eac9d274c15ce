package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"regexp"
	"slices"
	"strings"
	"testing"

	"marketplace/libs/ops"
)

func TestOperationPathSpellings(t *testing.T) {
	for _, in := range []string{"stores.reviews.addReview", "stores/reviews:addReview", "stores/reviews/addReview", " stores.reviews.addReview "} {
		if got, err := operationPath(in); err != nil || got != "stores.reviews.addReview" {
			t.Errorf("operationPath(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "addReview", "stores..addReview", `{"storeId":"x"}`, "stores reviews.add"} {
		if got, err := operationPath(bad); err == nil {
			t.Errorf("operationPath(%q) = %q, want an error", bad, got)
		}
	}
}

func TestArgsObject(t *testing.T) {
	for _, ok := range []string{`{}`, ` {"a":1} `, `{"a":{"b":[1,2]}}`, ``} {
		if _, err := argsObject([]byte(ok)); err != nil {
			t.Errorf("argsObject(%q): %v", ok, err)
		}
	}
	// Numbers reach the gateway as written (no float64 round trip).
	if got, _ := argsObject([]byte(`{"n":12345678901234567890}`)); string(got) != `{"n":12345678901234567890}` {
		t.Errorf("arguments rewritten: %s", got)
	}
	for _, bad := range []struct{ in, want string }{
		{`{bad`, `invalid character 'b' looking for beginning of object key string at byte 2`},
		{`{"a":1`, "ends too early"},
		{`[1,2]`, "must be a JSON object ({...}), got an array"},
		{`"x"`, "got a string"},
		{`null`, "got null"},
		{`{"a":1} {"b":2}`, "more follows the value after byte 7"},
	} {
		_, err := argsObject([]byte(bad.in))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("argsObject(%q) = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestRenderAndGet(t *testing.T) {
	answer := []byte(`{"page":[{"_id":"sto_1","n":2,"tags":["a"]}],"isDone":true,"z":null,"e":[]}`)
	for _, c := range []struct {
		get  string
		raw  bool
		want string
	}{
		{"", false, "{\n  \"page\": [\n    {\n      \"_id\": \"sto_1\",\n      \"n\": 2,\n      \"tags\": [\n        \"a\"\n      ]\n    }\n  ],\n  \"isDone\": true,\n  \"z\": null,\n  \"e\": []\n}\n"},
		{"", true, string(answer) + "\n"},
		{"e", true, "[]\n"},
		{"page.0._id", false, "sto_1\n"},
		{"page.0.n", false, "2\n"},
		{"page.0.tags", true, `["a"]` + "\n"},
		{"isDone", false, "true\n"},
		{"z", false, "null\n"},
	} {
		var path []string
		if c.get != "" {
			path, _ = fieldPath(c.get)
		}
		got, err := render(answer, path, c.raw)
		if err != nil || string(got) != c.want {
			t.Errorf("render --get %q raw %v = %q, %v; want %q", c.get, c.raw, got, err, c.want)
		}
	}
	// "." is the whole answer: a string answer (an id) printed raw.
	whole, _ := fieldPath(".")
	if got, err := render([]byte(`"cty_1"`), whole, false); err != nil || string(got) != "cty_1\n" {
		t.Errorf("--get . of a string: %q, %v", got, err)
	}
	for _, c := range []struct{ get, want string }{
		{"storeId", `--get storeId: no "storeId" in the answer (its keys: e, isDone, page, z)`},
		{"e.0", `no "0" at e (an empty array)`},
		{"page.3", `no "3" at page (an array of 1: an index 0 to 0)`},
		{"page.0.x", `no "x" at page.0 (its keys: _id, n, tags)`},
		{"isDone.a", `no "a" at isDone (it is a boolean, not an object or an array)`},
	} {
		path, _ := fieldPath(c.get)
		_, err := render(answer, path, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--get %s: %v, want %q", c.get, err, c.want)
		}
	}
	if _, err := fieldPath("page..id"); err == nil {
		t.Error("an empty field name accepted")
	}
}

func TestFlagsAnywhere(t *testing.T) {
	fs := newFlags("call")
	as := fs.String("as", "", "")
	get := fs.String("get", "", "")
	raw := fs.Bool("raw", false, "")
	pos, err := parseInterleaved(fs, []string{"--as", "u1", "stores.x.y", `{"a":1}`, "--get", "storeId", "-raw"})
	if err != nil || !slices.Equal(pos, []string{"stores.x.y", `{"a":1}`}) || *as != "u1" || *get != "storeId" || !*raw {
		t.Fatalf("pos %q as %q get %q raw %v: %v", pos, *as, *get, *raw, err)
	}
	// "-" (stdin) is an argument; after "--" everything is.
	fs = newFlags("call")
	fs.String("as", "", "")
	pos, err = parseInterleaved(fs, []string{"op.a.b", "-", "--", "--as"})
	if err != nil || !slices.Equal(pos, []string{"op.a.b", "-", "--as"}) {
		t.Fatalf("pos %q: %v", pos, err)
	}
	var usage *usageError
	if _, err := parseInterleaved(newFlags("call"), []string{"op.a.b", "--bogus"}); !errors.As(err, &usage) {
		t.Fatalf("an unknown flag: %v", err)
	}
	var help *helpRequest
	if _, err := parseInterleaved(newFlags("call"), []string{"op.a.b", "--help"}); !errors.As(err, &help) {
		t.Fatalf("--help after an argument: %v", err)
	}
}

// Every command answers -h, --help and help <command> with its usage on
// stdout (exit 0), listing its flags; usage errors are exit 2, other
// failures exit 1; an unknown command names the nearest.
func TestHelpAndExitCodes(t *testing.T) {
	ctx := context.Background()
	getenv := func(k string) string { return map[string]string{"DATA_DIR": t.TempDir()}[k] }
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		err := runCLI(ctx, args, &cli{getenv: getenv, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut})
		code := exitCode(err, &errOut)
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		out, _, code := run(args...)
		if code != 0 || !strings.Contains(out, "Commands:") || !strings.Contains(out, "  call ") || !strings.Contains(out, "(no command: run)") {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
	for _, cmd := range commands {
		fs := commandFlags(cmd)
		for _, args := range [][]string{{cmd.name, "-h"}, {cmd.name, "--help"}, {"help", cmd.name}} {
			out, errOut, code := run(args...)
			if code != 0 || !strings.HasPrefix(out, "Usage: marketplace "+cmd.name) || errOut != "" {
				t.Errorf("%q: exit %d, stdout\n%s\nstderr %s", args, code, out, errOut)
			}
			fs.VisitAll(func(f *flag.Flag) {
				if !strings.Contains(out, "  --"+f.Name) {
					t.Errorf("%q does not list --%s:\n%s", args, f.Name, out)
				}
			})
			if len(cmd.examples) == 0 || !strings.Contains(out, "Examples:\n  "+cmd.examples[0]) {
				t.Errorf("%q has no examples:\n%s", args, out)
			}
		}
	}
	if _, errOut, code := run("clal"); code != 2 || !strings.Contains(errOut, `unknown command "clal"; did you mean call?`) {
		t.Errorf("unknown command: exit %d, %s", code, errOut)
	}
	if _, errOut, code := run("help", "tokn"); code != 2 || !strings.Contains(errOut, "did you mean token?") {
		t.Errorf("help of an unknown command: exit %d, %s", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"call"}, "name the operation to call"},
		{[]string{"call", "a.b.c", "{x"}, "the arguments are not valid JSON: invalid character 'x'"},
		{[]string{"call", "a.b.c", "{}", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"call", "--roles", "admin", "a.b.c"}, "--roles is for the --as token"},
		{[]string{"call", "--as", "u", "--token", "t", "a.b.c"}, "--as and --token both name the caller"},
		{[]string{"call", "a.b.c", "--get", "a..b"}, "--get: \"a..b\" has an empty field name"},
		{[]string{"call", "--bogus", "a.b.c"}, "flag provided but not defined: -bogus"},
		{[]string{"ops", "a", "b"}, "one filter at most"},
		{[]string{"upload"}, "name one file"},
		{[]string{"completion", "fish"}, `unknown shell "fish"`},
		{[]string{"token"}, "-sub is required"},
		{[]string{"run", "extra"}, `unexpected arguments ["extra"]`},
	} {
		out, errOut, code := run(c.args...)
		// The error, then one line pointing at -h (not the flags, which
		// would scroll the error away).
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], "marketplace "+c.args[0]+": ") || !strings.Contains(lines[0], c.want) ||
			lines[1] != "Run 'marketplace "+c.args[0]+" -h' for its flags and examples." {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant %q and a line pointing at -h", c.args, code, out, errOut, c.want)
		}
	}
	// A system that is not running: exit 1, saying where it was looked for.
	if _, errOut, code := run("call", "--url", "http://127.0.0.1:1", "catalog.locations.listCities"); code != 1 ||
		!strings.Contains(errOut, "is `make run` running at http://127.0.0.1:1?") {
		t.Errorf("no system: exit %d, %s", code, errOut)
	}
}

// The ops table names the values of a string argument that takes a few
// (its enum rule), which a caller could not guess from "string".
func TestArgsLineNamesEnumValues(t *testing.T) {
	got := argsLine([]ops.ArgDoc{
		{Name: "flagId", Type: "string", Required: true, Rules: "required,id=reviewFlags"},
		{Name: "action", Type: "string", Required: true, Rules: "required,enum=dismiss|hide_review"},
		{Name: "sortBy", Type: "string", Rules: "enum=newest|oldest"},
		{Name: "rating", Type: "number", Rules: "min=1,max=5"},
	})
	if want := "flagId: string, action: dismiss|hide_review, sortBy?: newest|oldest, rating?: number"; got != want {
		t.Fatalf("argsLine:\n got %s\nwant %s", got, want)
	}
}

// A refusal of who called gets a hint in the command's terms: --as for a
// call without a token, --roles admin for an administrators' operation
// refused to an --as user without the role; no hint otherwise.
func TestRefusalHint(t *testing.T) {
	for _, c := range []struct {
		as, roles, tok string
		status         int
		access         ops.Access
		want           string
	}{
		{"", "", "", 401, ops.Customer, "hint: call as a user with --as USER"},
		{"", "", "", 401, "", "hint: call as a user with --as USER"}, // upload: no declared access
		{"user-1", "", "tok", 401, ops.Customer, ""},                 // a token was sent: the message says what is wrong with it
		{"user-1", "", "tok", 403, ops.Admin, "hint: an administrators' operation: call with --as user-1 --roles admin"},
		{"user-1", "support", "tok", 403, ops.Admin, "--roles admin"},
		{"user-1", "support, admin", "tok", 403, ops.Admin, ""},
		{"user-1", "", "tok", 403, ops.StoreOwner, ""}, // not the store's owner: a role does not help
		{"", "", "tok", 403, ops.Admin, ""},            // --token: its roles are not the command's to change
		{"", "", "", 400, ops.Public, ""},
	} {
		g := &gatewayFlags{as: c.as, roles: c.roles}
		got := g.refusalHint(c.status, c.tok, c.access)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: hint %q, want %q", c, got, c.want)
		}
	}
}

// Every flag that takes a value shows what to give in capitals (--sub USER,
// --ttl DURATION), never Go's type name (--sub string) nor words a usage
// text quoted by accident (--data marketplace pay).
func TestFlagPlaceholdersNameTheValue(t *testing.T) {
	placeholder := regexp.MustCompile(`^[A-Z][A-Z_]*$|^[a-z]+=[A-Z]+$`)
	for _, cmd := range commands {
		commandFlags(cmd).VisitAll(func(f *flag.Flag) {
			name, _ := flag.UnquoteUsage(f)
			if name != "" && !placeholder.MatchString(name) {
				t.Errorf("marketplace %s --%s shows %q as its value", cmd.name, f.Name, name)
			}
		})
	}
}
