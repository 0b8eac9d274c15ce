package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"marketplace/gateway"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
)

// DefaultURL is the gateway `make run` serves.
const DefaultURL = "http://127.0.0.1:8080"

// EnvURL and EnvToken are the environment's defaults for --url and the
// caller's token.
const (
	EnvURL   = "MARKETPLACE_URL"
	EnvToken = "MARKETPLACE_TOKEN"
)

// gatewayFlags are the flags of the commands that talk to a running system.
type gatewayFlags struct {
	url, as, roles, token string
	c                     *cli
	fs                    *flag.FlagSet
}

func addGatewayFlags(fs *flag.FlagSet, c *cli, identity bool) *gatewayFlags {
	g := &gatewayFlags{c: c, fs: fs}
	def := c.getenv(EnvURL)
	if def == "" {
		def = DefaultURL
	}
	fs.StringVar(&g.url, "url", def, "the gateway's `URL` ($"+EnvURL+")")
	if identity {
		fs.StringVar(&g.as, "as", "", "call as `USER`: a development token for that user id, minted like marketplace token (the secret of AUTH_DEV_SECRET or DATA_DIR)")
		fs.StringVar(&g.roles, "roles", "", "the --as token's `ROLES`, comma-separated, e.g. admin")
		fs.StringVar(&g.token, "token", "", "call with this bearer `TOKEN` (default $"+EnvToken+"; neither: anonymous)")
	}
	return g
}

// bearer is the caller's token: minted for --as, else --token, else
// MARKETPLACE_TOKEN; "" is anonymous.
func (g *gatewayFlags) bearer() (string, error) {
	switch {
	case g.as != "" && g.token != "":
		return "", usageErr(g.fs, "--as and --token both name the caller; give one")
	case g.roles != "" && g.as == "":
		return "", usageErr(g.fs, "--roles is for the --as token; add --as USER")
	case g.as != "":
		tok, err := devToken(g.c.getenv, g.as, "", g.roles, time.Hour)
		if err != nil {
			return "", fmt.Errorf("--as %s: %w", g.as, err)
		}
		return tok, nil
	case g.token != "":
		return g.token, nil
	}
	return strings.TrimSpace(g.c.getenv(EnvToken)), nil
}

func (g *gatewayFlags) base() string { return strings.TrimRight(g.url, "/") }

// do sends one request to the gateway; a gateway that cannot be reached is
// an error saying where the system was looked for.
func (g *gatewayFlags) do(ctx context.Context, timeout time.Duration, req *http.Request) (status int, body []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := noRedirects.Do(req.WithContext(ctx))
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return 0, nil, fmt.Errorf("cannot reach the gateway at %s (connection refused): is `make run` running at %s? (--url or $%s to call another)", g.base(), g.base(), EnvURL)
		}
		return 0, nil, fmt.Errorf("cannot reach the gateway at %s: %w (is `make run` running there?)", g.base(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 3 {
		return 0, nil, fmt.Errorf("%s %s answered %d, a redirect to %q, which is not followed (the gateway never redirects; the token would go along): is --url the gateway's address?",
			req.Method, req.URL, resp.StatusCode, resp.Header.Get("Location"))
	}
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer of %s: %w", req.URL, err)
	}
	return resp.StatusCode, body, nil
}

// noRedirects is the client of call, ops and upload: a redirect is an
// answer, not followed, since Go's client would send the Authorization
// header on to any port of the same host (and a 307 or 308 the body).
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// operation is one entry of GET /api/operations.
type operation = gateway.OperationEntry

// operations asks the gateway for its public operations.
func (g *gatewayFlags) operations(ctx context.Context, timeout time.Duration) ([]operation, error) {
	req, err := http.NewRequest("GET", g.base()+"/api/operations", nil)
	if err != nil {
		return nil, usageErr(g.fs, "--url %q: %v", g.url, err)
	}
	status, body, err := g.do(ctx, timeout, req)
	if err != nil {
		return nil, err
	}
	var list []operation
	if status != http.StatusOK {
		return nil, gatewayFailure(status, body)
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("GET %s/api/operations: not a list of operations (%v); is %s the marketplace's gateway?", g.base(), err, g.base())
	}
	return list, nil
}

// callTimeout bounds one call; listTimeout the list of operations.
const (
	callTimeout = 2 * time.Minute
	listTimeout = 30 * time.Second
)

func callCmd(ctx context.Context, c *cli, args []string) error {
	fs := newFlags("call")
	g := addGatewayFlags(fs, c, true)
	get := fs.String("get", "", "print only this field of the answer: a dot `PATH` (storeId, page.0._id; . is the whole answer), a string raw, anything else as JSON")
	key := fs.String("idempotency-key", "", "the mutation's Idempotency-Key `KEY`: a repeat with the same key and arguments changes nothing and gets the kept answer")
	raw := fs.Bool("raw", false, "print JSON compact, on one line")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr(fs, "name the operation to call (marketplace ops lists them)")
	}
	if len(pos) > 2 {
		return usageErr(fs, "unexpected arguments %q: the arguments are one JSON object (quote it)", pos[2:])
	}
	opPath, err := operationPath(pos[0])
	if err != nil {
		return usageErr(fs, "%v", err)
	}
	argsJSON := []byte("{}")
	if len(pos) == 2 {
		src := []byte(pos[1])
		if pos[1] == "-" {
			if src, err = io.ReadAll(c.stdin); err != nil {
				return fmt.Errorf("reading the arguments from stdin: %w", err)
			}
		}
		if argsJSON, err = argsObject(src); err != nil {
			return usageErr(fs, "%v", err)
		}
	}
	var getPath []string
	if *get != "" {
		if getPath, err = fieldPath(*get); err != nil {
			return usageErr(fs, "--get: %v", err)
		}
	}
	tok, err := g.bearer()
	if err != nil {
		return err
	}
	list, err := g.operations(ctx, listTimeout)
	if err != nil {
		return err
	}
	kind := ops.Query // an unknown operation: the gateway's answer names the nearest
	var access ops.Access
	for _, o := range list {
		if o.Path == opPath {
			kind, access = o.Kind, o.Access
		}
	}
	if *key != "" && kind != ops.Mutation && slices.ContainsFunc(list, func(o operation) bool { return o.Path == opPath }) {
		return usageErr(fs, "--idempotency-key is for mutations; %s is a query", opPath)
	}
	body, _ := json.Marshal(struct {
		Path string          `json:"path"`
		Args json.RawMessage `json:"args"`
	}{opPath, argsJSON})
	req, err := http.NewRequest("POST", g.base()+"/api/"+string(kind), bytes.NewReader(body))
	if err != nil {
		return usageErr(fs, "--url %q: %v", g.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if *key != "" {
		req.Header.Set(ops.HeaderIdempotencyKey, *key)
	}
	status, answer, err := g.do(ctx, callTimeout, req)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return reportFailure(c.stderr, status, answer, g.refusalHint(status, tok, access))
	}
	out, err := render(answer, getPath, *raw)
	if err != nil {
		fmt.Fprintf(c.stderr, "marketplace call: %v\n", err)
		return &failed{err}
	}
	_, err = c.stdout.Write(out)
	return err
}

// operationPath reads an operation's path in any of its spellings:
// stores.reviews.addReview, stores/reviews:addReview (Convex's),
// stores/reviews/addReview.
func operationPath(s string) (string, error) {
	p := strings.NewReplacer("/", ".", ":", ".").Replace(strings.TrimSpace(s))
	p = strings.Trim(p, ".")
	parts := strings.Split(p, ".")
	for _, part := range parts {
		if part == "" || strings.ContainsAny(part, " \t\n\"'{}") {
			return "", fmt.Errorf("%q is not an operation path (area.module.function, e.g. stores.reviews.addReview)", s)
		}
	}
	if len(parts) < 2 {
		return "", fmt.Errorf("%q is not an operation path (area.module.function, e.g. stores.reviews.addReview)", s)
	}
	return p, nil
}

// argsObject checks that src is one JSON object and returns it.
func argsObject(src []byte) ([]byte, error) {
	src = bytes.TrimSpace(src)
	if len(src) == 0 {
		return []byte("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the arguments are not valid JSON: %s", jsonProblem(src, err))
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("the arguments are not valid JSON: more follows the value after byte %d (give one object, e.g. '{\"storeId\":\"sto_...\"}')", end)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object ({...}), got %s", jsonKind(v))
	}
	return src, nil
}

// jsonProblem describes a decoding error with where it is.
func jsonProblem(src []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v at byte %d (near %q)", syn, syn.Offset, around(src, int(syn.Offset)))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "it ends too early (an unclosed { or \"?)"
	}
	return err.Error()
}

func around(src []byte, off int) string {
	lo, hi := max(0, off-10), min(len(src), off+10)
	return string(src[lo:hi])
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// fieldPath reads --get's dot path; "." is the whole answer.
func fieldPath(s string) ([]string, error) {
	if s == "." {
		return []string{}, nil
	}
	parts := strings.Split(strings.TrimPrefix(s, "."), ".")
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("%q has an empty field name (a dot path: storeId, page.0._id; . for the whole answer)", s)
		}
	}
	return parts, nil
}

// render prints the answer: the field at get (nil: all of it), a string raw,
// anything else as 2-space indented JSON (or compact with raw). The
// answer's own order of keys is kept.
func render(answer []byte, get []string, raw bool) ([]byte, error) {
	value := json.RawMessage(bytes.TrimSpace(answer))
	if get != nil {
		v, err := field(value, get)
		if err != nil {
			return nil, err
		}
		var s string
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
			return []byte(s + "\n"), nil
		}
		value = v
	}
	var b bytes.Buffer
	var err error
	if raw {
		err = json.Compact(&b, value)
	} else {
		err = json.Indent(&b, value, "", "  ")
	}
	if err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v: %.200s", err, answer)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// field finds the value at path in v: object keys by name, array items by
// index. A missing one is an error naming what exists there.
func field(v json.RawMessage, path []string) (json.RawMessage, error) {
	for i, name := range path {
		at := strings.Join(path[:i], ".")
		where := "in the answer"
		if at != "" {
			where = "at " + at
		}
		missing := func(have string) error {
			return fmt.Errorf("--get %s: no %q %s (%s)", strings.Join(path, "."), name, where, have)
		}
		switch b := bytes.TrimSpace(v); {
		case len(b) > 0 && b[0] == '{':
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(b, &obj); err != nil {
				return nil, err
			}
			next, ok := obj[name]
			if !ok {
				keys := make([]string, 0, len(obj))
				for k := range obj {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if len(keys) == 0 {
					return nil, missing("an empty object")
				}
				return nil, missing("its keys: " + strings.Join(keys, ", "))
			}
			v = next
		case len(b) > 0 && b[0] == '[':
			var arr []json.RawMessage
			if err := json.Unmarshal(b, &arr); err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(name)
			switch {
			case len(arr) == 0:
				return nil, missing("an empty array")
			case err != nil || n < 0 || n >= len(arr):
				return nil, missing(fmt.Sprintf("an array of %d: an index 0 to %d", len(arr), len(arr)-1))
			}
			v = arr[n]
		default:
			return nil, missing("it is " + describeScalar(b) + ", not an object or an array")
		}
	}
	return v, nil
}

func describeScalar(b []byte) string {
	var v any
	_ = json.Unmarshal(b, &v)
	return jsonKind(v)
}

// apiError is the contract's failure body (section 2).
type apiError struct {
	Error *struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	} `json:"error"`
}

// gatewayFailure is a failure answer as an error: CODE: message, then the
// details (compact JSON) on a second line.
func gatewayFailure(status int, body []byte) error {
	var e apiError
	if json.Unmarshal(body, &e) == nil && e.Error != nil && e.Error.Code != "" {
		msg := e.Error.Code + ": " + e.Error.Message
		if d := bytes.TrimSpace(e.Error.Details); len(d) > 0 && string(d) != "null" {
			var b bytes.Buffer
			if json.Compact(&b, d) == nil {
				msg += "\ndetails: " + b.String()
			}
		}
		return errors.New(msg)
	}
	return fmt.Errorf("HTTP %d: %.300s", status, bytes.TrimSpace(body))
}

// reportFailure prints a failure answer on stderr, then the hint, if any,
// on a line of its own.
func reportFailure(stderr io.Writer, status int, body []byte, hint string) error {
	err := gatewayFailure(status, body)
	fmt.Fprintln(stderr, err)
	if hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	return &failed{err}
}

// refusalHint is what the command line's user does after a refusal of who
// called, which the gateway's message cannot say in the command's terms: a
// call without a token (401) is made as a user with --as; an
// administrators' operation refused (403) to an --as user without the admin
// role needs --roles admin.
func (g *gatewayFlags) refusalHint(status int, tok string, access ops.Access) string {
	switch {
	case status == http.StatusUnauthorized && tok == "":
		return "hint: call as a user with --as USER (a development token; --roles admin for an administrator), or give --token or $" + EnvToken
	case status == http.StatusForbidden && access == ops.Admin && g.as != "" && !hasRole(g.roles, auth.RoleAdmin):
		return "hint: an administrators' operation: call with --as " + g.as + " --roles admin"
	}
	return ""
}

// hasRole says whether a --roles list (comma-separated) holds role.
func hasRole(roles, role string) bool {
	for _, r := range strings.Split(roles, ",") {
		if strings.TrimSpace(r) == role {
			return true
		}
	}
	return false
}

func opsCmd(ctx context.Context, c *cli, args []string) error {
	fs := newFlags("ops")
	g := addGatewayFlags(fs, c, false)
	asJSON := fs.Bool("json", false, "print the list as JSON (path, kind, access, service, summary, args)")
	names := fs.Bool("names", false, "print only the paths, one a line, asking for at most 2 seconds (for shell completion)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErr(fs, "one filter at most, got %q", pos)
	}
	timeout := listTimeout
	if *names {
		timeout = 2 * time.Second
	}
	list, err := g.operations(ctx, timeout)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		filter := pos[0]
		var kept []operation
		for _, o := range list {
			ok, err := matches(filter, o.Path)
			if err != nil {
				return usageErr(fs, "filter %q: %v", filter, err)
			}
			if ok {
				kept = append(kept, o)
			}
		}
		if len(kept) == 0 {
			msg := fmt.Sprintf("no operation matches %q", filter)
			if near := nearestOperations(filter, list); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, ", ") + "?"
			}
			return errors.New(msg)
		}
		list = kept
	}
	switch {
	case *names:
		for _, o := range list {
			if isOperationPath(o.Path) { // the completion's words (completion.go)
				fmt.Fprintln(c.stdout, o.Path)
			}
		}
		return nil
	case *asJSON:
		if list == nil {
			list = []operation{}
		}
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = c.stdout.Write(append(b, '\n'))
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tKIND\tACCESS\tARGUMENTS")
	for _, o := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Path, o.Kind, o.Access, argsLine(o.Args))
	}
	return tw.Flush()
}

// nearestOperations names the operations nearest to a filter that matched
// none: by path, else by function name (addReviw: stores.reviews.addReview).
func nearestOperations(filter string, list []operation) []string {
	paths := make([]string, len(list))
	byFunction := map[string][]string{}
	for i, o := range list {
		paths[i] = o.Path
		fn := o.Path[strings.LastIndexByte(o.Path, '.')+1:]
		byFunction[fn] = append(byFunction[fn], o.Path)
	}
	if near := ops.Nearest(filter, paths, 3); len(near) > 0 {
		return near
	}
	var out []string
	for _, fn := range ops.Nearest(filter, slices.Collect(maps.Keys(byFunction)), 3) {
		out = append(out, byFunction[fn]...)
	}
	return out[:min(len(out), 3)]
}

// matches says whether an operation's path is kept by the filter: a glob
// when it has * ? or [, else a substring, both without regard to case and
// with the filter spelled as an operation may be (/ and : for dots).
func matches(filter, opPath string) (bool, error) {
	f := strings.ToLower(strings.NewReplacer("/", ".", ":", ".").Replace(filter))
	p := strings.ToLower(opPath)
	if strings.ContainsAny(f, "*?[") {
		return path.Match(f, p)
	}
	return strings.Contains(p, f), nil
}

// argsLine is an operation's arguments on one line: name: type, with a ?
// after an optional one's name; a string of a few values names them
// (action: dismiss|hide_review), as a caller cannot guess them.
func argsLine(args []ops.ArgDoc) string {
	if len(args) == 0 {
		return "-"
	}
	parts := make([]string, len(args))
	for i, a := range args {
		opt := "?"
		if a.Required {
			opt = ""
		}
		typ := a.Type
		if values := enumRule(a.Rules); values != "" && typ == "string" {
			typ = values
		}
		parts[i] = a.Name + opt + ": " + typ
	}
	return strings.Join(parts, ", ")
}

// enumRule is the values of an argument's enum rule (op:"required,enum=a|b"
// gives "a|b"), "" without one.
func enumRule(rules string) string {
	for _, r := range strings.Split(rules, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(r), "enum="); ok {
			return v
		}
	}
	return ""
}

func uploadCmd(ctx context.Context, c *cli, args []string) error {
	fs := newFlags("upload")
	g := addGatewayFlags(fs, c, true)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr(fs, "name one file to upload (- for stdin)")
	}
	var data []byte
	if pos[0] == "-" {
		data, err = io.ReadAll(c.stdin)
	} else {
		data, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return usageErr(fs, "%s is empty", pos[0])
	}
	tok, err := g.bearer()
	if err != nil {
		return err
	}
	req, err := http.NewRequest("POST", g.base()+"/api/storage/upload", bytes.NewReader(data))
	if err != nil {
		return usageErr(fs, "--url %q: %v", g.url, err)
	}
	// The type the bytes show (image/png, image/jpeg, ...); the media
	// service decides which it takes.
	req.Header.Set("Content-Type", http.DetectContentType(data))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	status, answer, err := g.do(ctx, callTimeout, req)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return reportFailure(c.stderr, status, answer, g.refusalHint(status, tok, ""))
	}
	var up struct {
		StorageID string `json:"storageId"`
	}
	if err := json.Unmarshal(answer, &up); err != nil || up.StorageID == "" {
		return fmt.Errorf("the upload's answer has no storageId: %.200s", answer)
	}
	fmt.Fprintln(c.stdout, up.StorageID)
	return nil
}
