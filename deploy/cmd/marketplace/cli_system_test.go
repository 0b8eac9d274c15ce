package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command line against the real all-in-one binary (`make run`'s), on a
// data directory of its own: call (a query, mutations as --as users, --get,
// stdin, MARKETPLACE_TOKEN, an idempotency key, failures with their code on
// stderr), ops with a filter, upload, help, and the bash completion. The CLI
// finds the development secret in DATA_DIR as `make token` does.
func TestCommandLineAgainstTheRunningSystem(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the all-in-one binary")
	}
	bin := buildMarketplace(t)
	dataDir := t.TempDir()
	var base []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "MARKETPLACE_") && k != "AUTH_DEV_SECRET" && k != "DATA_DIR" {
			base = append(base, kv)
		}
	}
	base = append(base, "DATA_DIR="+dataDir)
	p := startMarketplace(t, bin, append(base, "HTTP_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=warn", "ACCESS_LOG=false", "RATE_LIMIT_RPS=0"))
	env := append(base, "MARKETPLACE_URL="+p.url)

	type result struct {
		out, err string
		code     int
	}
	mp := func(stdin string, extraEnv []string, args ...string) result {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append([]string{}, env...), extraEnv...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{out.String(), errOut.String(), code}
	}
	call := func(args ...string) result { t.Helper(); return mp("", nil, append([]string{"call"}, args...)...) }
	ok := func(r result, what string) string {
		t.Helper()
		if r.code != 0 || r.err != "" {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", what, r.code, r.out, r.err)
		}
		return r.out
	}
	fails := func(r result, what, wantErr string) {
		t.Helper()
		if r.code != 1 || r.out != "" || !strings.Contains(r.err, wantErr) {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit 1 and %q", what, r.code, r.out, r.err, wantErr)
		}
	}

	// A query, anonymous: pretty JSON.
	if out := ok(call("catalog.locations.listCities"), "a query"); out != "[]\n" {
		t.Fatalf("listCities: %q", out)
	}
	// A mutation as an administrator; its answer is the id, a bare string: --get . prints it raw.
	city := strings.TrimSpace(ok(call("--as", "admin-1", "--roles", "admin", "admins.catalog.createCity", `{"name":"Dubai","nameArabic":"دبي"}`, "--get", "."), "createCity"))
	if !strings.HasPrefix(city, "cty_") {
		t.Fatalf("createCity --get .: %q", city)
	}
	// Flags after the arguments, Convex's spelling, a field deep in the answer.
	if got := ok(call("catalog/locations:listCities", "{}", "--get", "0._id"), "--get 0._id"); got != city+"\n" {
		t.Fatalf("--get 0._id: %q, want %s", got, city)
	}
	out := ok(call("catalog/locations/listCities"), "listCities")
	if !strings.Contains(out, "[\n  {\n    \"_id\": \""+city+"\",\n") {
		t.Fatalf("not 2-space JSON:\n%s", out)
	}
	if raw := ok(call("--raw", "catalog.locations.listCities"), "--raw"); strings.Count(raw, "\n") != 1 || !strings.Contains(raw, `"name":"Dubai"`) {
		t.Fatalf("--raw: %q", raw)
	}
	// The arguments from stdin.
	area := strings.TrimSpace(ok(mp(`{"name":"Marina","city":"`+city+`"}`, nil, "call", "--as", "admin-1", "--roles", "admin", "admins.catalog.createArea", "-", "--get", "."), "createArea from stdin"))
	if !strings.HasPrefix(area, "ara_") {
		t.Fatalf("createArea: %q", area)
	}

	// Failures: the code and message on stderr, the details on one line, exit 1.
	// A refusal of the caller says, in the command's terms, how to call instead.
	r := call("admins.catalog.createCity", `{"name":"Abu Dhabi","nameArabic":"أبوظبي"}`)
	fails(r, "a mutation without a token", "UNAUTHENTICATED: ")
	fails(r, "a mutation without a token", "\nhint: call as a user with --as USER")
	r = call("--as", "user-1", "admins.catalog.createCity", `{"name":"Abu Dhabi","nameArabic":"أبوظبي"}`)
	fails(r, "a mutation without the admin role", "PERMISSION_DENIED: ")
	fails(r, "a mutation without the admin role", "\nhint: an administrators' operation: call with --as user-1 --roles admin\n")
	r = call("--as", "admin-1", "--roles", "admin", "admins.catalog.createArea", `{"name":"Marina","city":"nope"}`)
	fails(r, "a malformed id", "INVALID_ARGUMENT: ")
	if lines := strings.Split(strings.TrimSpace(r.err), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "details: {") || !json.Valid([]byte(strings.TrimPrefix(lines[1], "details: "))) {
		t.Fatalf("the error's details are not one line of JSON:\n%s", r.err)
	}
	fails(call("stores.reviews.addReviw", `{}`), "an unknown operation", `NOT_FOUND: unknown operation "stores.reviews.addReviw"; did you mean stores.reviews.addReview`)
	fails(call("catalog.locations.listCities", "--get", "0.zz"), "a missing field", `--get 0.zz: no "zz" at 0 (its keys: _creationTime, _id, name, nameArabic)`)
	if r := call("catalog.locations.listCities", `{"a":`); r.code != 2 || !strings.Contains(r.err, "the arguments are not valid JSON") || !strings.Contains(r.err, "Run 'marketplace call -h'") {
		t.Fatalf("invalid JSON: exit %d\n%s", r.code, r.err)
	}

	// MARKETPLACE_TOKEN (from marketplace token, the same DATA_DIR secret), and an idempotency key.
	tok := strings.TrimSpace(ok(mp("", nil, "token", "-sub", "user-7"), "token"))
	withToken := []string{"MARKETPLACE_TOKEN=" + tok}
	first := ok(mp("", withToken, "call", "customers.profile.upsertMyProfile", `{"name":"Mona"}`, "--idempotency-key", "cli-key-1"), "upsert with a key")
	if again := ok(mp("", withToken, "call", "customers.profile.upsertMyProfile", `{"name":"Mona"}`, "--idempotency-key", "cli-key-1"), "the repeat"); again != first {
		t.Fatalf("the repeat with the key answered %q, first %q", again, first)
	}
	r = mp("", withToken, "call", "customers.profile.upsertMyProfile", `{"name":"Other"}`, "--idempotency-key", "cli-key-1")
	fails(r, "the key reused with other arguments", "INVALID_ARGUMENT: ")
	if !strings.Contains(r.err, "idempotency_key_reused") {
		t.Fatalf("reused key: %s", r.err)
	}
	if got := ok(mp("", withToken, "call", "customers.profile.getMyProfile", "--get", "name"), "getMyProfile"); got != "Mona\n" {
		t.Fatalf("the profile as user-7: %q", got)
	}

	// ops: a filter, the table and JSON.
	table := ok(mp("", nil, "ops", "Area"), "ops Area")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if !strings.HasPrefix(lines[0], "OPERATION") || len(lines) != 4 {
		t.Fatalf("ops Area:\n%s", table)
	}
	for _, want := range []string{"admins.catalog.createArea", "mutation", "admin", "name: string, city: string", "admins.catalog.updateArea", "catalog.locations.listAreas", "query", "public"} {
		if !strings.Contains(table, want) {
			t.Fatalf("ops Area lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "reviews") {
		t.Fatalf("the filter kept other operations:\n%s", table)
	}
	var listed []operation
	if err := json.Unmarshal([]byte(ok(mp("", nil, "ops", "--json", "stores.reviews.*"), "ops --json")), &listed); err != nil || len(listed) < 5 {
		t.Fatalf("ops --json: %v, %d", err, len(listed))
	}
	for _, o := range listed {
		if !strings.HasPrefix(o.Path, "stores.reviews.") || o.Access == "" || o.Kind == "" {
			t.Fatalf("ops --json stores.reviews.*: %+v", o)
		}
		if o.Path == "stores.reviews.addReview" && (o.Kind != "mutation" || o.Access != "customer" || argsLine(o.Args) == "-" || !strings.Contains(argsLine(o.Args), "rating: number")) {
			t.Fatalf("addReview: %+v", o)
		}
	}
	fails(mp("", nil, "ops", "addReviw"), "a filter matching nothing", `no operation matches "addReviw"; did you mean`)
	// An argument of a few values names them.
	if table := ok(mp("", nil, "ops", "resolveFlag"), "ops resolveFlag"); !strings.Contains(table, "action: dismiss|hide_review") {
		t.Fatalf("ops resolveFlag does not name the actions:\n%s", table)
	}

	// upload: the storageId, and the bytes back.
	photo := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 300)...)
	file := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(file, photo, 0o600); err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(ok(mp("", nil, "upload", "--as", "user-7", file), "upload"))
	resp, err := http.Get(p.url + "/api/storage/" + id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, photo) {
		t.Fatalf("the upload %q read back: %d, %d bytes", id, resp.StatusCode, len(got))
	}
	fails(mp("", nil, "upload", file), "an upload without a token", "UNAUTHENTICATED: ")
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("not a photo"), 0o600)
	fails(mp("", nil, "upload", "--as", "user-7", text), "a text file", "INVALID_ARGUMENT: Content-Type must be an image type")

	// -h of the program and of each command, from the binary: usage on stdout, exit 0.
	for _, args := range [][]string{{"-h"}, {"--help"}, {"call", "-h"}, {"ops", "--help"}, {"upload", "-h"}, {"completion", "-h"}, {"help", "token"}} {
		r := mp("", nil, args...)
		if r.code != 0 || r.err != "" || !strings.Contains(r.out, "Usage: marketplace") {
			t.Fatalf("%q: exit %d\n%s%s", args, r.code, r.out, r.err)
		}
	}

	// The bash completion script: commands, flags and, from the running system, operation paths.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed (the Makefile's SHELL)")
	}
	script := ok(mp("", nil, "completion", "bash"), "completion bash")
	complete := func(words ...string) []string {
		t.Helper()
		prog := script + `
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
complete -p marketplace >/dev/null || exit 3
_marketplace_completion
printf '%s\n' "${COMPREPLY[@]}"
`
		cmd := exec.Command(bash, append([]string{"-c", prog, "bash", bin}, words...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", words, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"ca"}, "call"},
		{[]string{"comp"}, "completion"},
		{[]string{"call", "--ro"}, "--roles"},
		{[]string{"call", "--as", "u1", "--idem"}, "--idempotency-key"},
		{[]string{"call", "catalog.locations.listC"}, "catalog.locations.listCities"},
		{[]string{"call", "--as", "admin-1", "admins.catalog.createAr"}, "admins.catalog.createArea"},
		{[]string{"ops", "stores.reviews.addR"}, "stores.reviews.addReview"},
		{[]string{"completion", "z"}, "zsh"},
		{[]string{"help", "up"}, "upload"},
	} {
		if got := complete(c.words...); len(got) != 1 || got[0] != c.want {
			t.Errorf("completing %q: %q, want %q", c.words, got, c.want)
		}
	}
	// The second argument of call is JSON: no operation paths offered.
	if got := complete("call", "catalog.locations.listCities", "cat"); len(got) != 0 {
		t.Errorf("completing call's arguments: %q", got)
	}
	// The --url on the line is followed: nothing is served there.
	if got := complete("call", "--url", "http://127.0.0.1:1", "catalog.locations.listC"); len(got) != 0 {
		t.Errorf("completing against --url of nothing: %q", got)
	}
	if reg, _ := exec.Command(bash, "-c", script+"\ncomplete -p marketplace").CombinedOutput(); !strings.Contains(string(reg), "-F _marketplace_completion") {
		t.Errorf("complete -p marketplace: %s", reg)
	}
	p.stop(t)
}
