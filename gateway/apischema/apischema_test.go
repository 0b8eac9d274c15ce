package apischema

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"marketplace/libs/ops"
	"marketplace/libs/page"
)

type itemView struct {
	ID    string  `json:"_id"`
	Price float64 `json:"price"`
	Note  string  `json:"note,omitempty"`
}

type listArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	Sort           *string   `json:"sortBy" op:"enum=newest|oldest"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

type addArgs struct {
	Name string `json:"name" op:"required,nonblank"`
}

func sample() *API {
	list := func(context.Context, *listArgs) (page.Result[itemView], error) { return page.Result[itemView]{}, nil }
	get := func(context.Context, *ops.NoArgs) (*itemView, error) { return nil, nil }
	add := func(context.Context, *addArgs) (string, error) { return "", nil }
	r := ops.NewRegistry("shop",
		ops.NewQuery("stores.items.listItems", ops.Public, "Items of a store.", list),
		ops.NewQuery("stores.items.getMine", ops.Authenticated, "Mine.", get),
		ops.NewMutation("admins.items.addItem", ops.Admin, "Add one.", add),
		ops.NewQuery("stores.items.internalOnly", ops.Internal, "Services only.", get, ops.CalledBy("reviews", "payouts")),
	)
	var list2 []Operation
	for _, d := range r.Describe() {
		list2 = append(list2, Operation{Service: "shop", Descriptor: d})
	}
	return New(list2, []Route{{Service: "shop", RouteDescriptor: ops.RouteDescriptor{Method: "GET", Path: "/files/:fileId", Access: ops.Public,
		Doc: &ops.RouteDoc{Responses: []ops.ResponseDoc{{Status: 200, Description: "the file", Bodies: []ops.BodyDoc{{ContentType: "image/png"}}}}}}}})
}

func TestNames(t *testing.T) {
	if got := ConvexName("stores.reviews.addReview"); got != "stores/reviews:addReview" {
		t.Error(got)
	}
	if got := RunPath("stores.reviews.addReview"); got != "/api/run/stores/reviews/addReview" {
		t.Error(got)
	}
}

func TestTypeScriptDeclaresEveryPublicOperation(t *testing.T) {
	dts, js := sample().TypeScript()
	for _, want := range []string{
		"export declare const api: {\n  admins: {\n    items: {",
		"addItem: FunctionReference<\n        \"mutation\",\n        \"public\",\n        {\n          name: string;\n        },\n        string\n      >;",
		"getMine: FunctionReference<\n        \"query\",\n        \"public\",\n        Record<string, never>,\n        {\n          _id: string;\n          price: number;\n          note?: string;\n        } | null\n      >;",
		"storeId: string;\n          sortBy?: \"newest\" | \"oldest\" | null;\n          paginationOpts: PaginationOptions;",
		"PaginationResult<{\n          _id: string;",
		"Runs as `stores/items:listItems` (POST /api/run/stores/items/listItems).",
	} {
		if !strings.Contains(dts, want) {
			t.Errorf("api.d.ts lacks\n%s\n--- in ---\n%s", want, dts)
		}
	}
	if strings.Contains(dts, "internalOnly") {
		t.Error("an internal operation is in the client")
	}
	if !strings.Contains(js, `import { anyApi } from "convex/server";`) || !strings.Contains(js, "export const api = anyApi;") {
		t.Errorf("api.js:\n%s", js)
	}
}

func TestOpenAPIDescribesOperationsAndRoutes(t *testing.T) {
	b, err := sample().OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI    string                    `json:"openapi"`
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Error(doc.OpenAPI)
	}
	for _, p := range []string{"/api/run/stores/items/listItems", "/api/run/stores/items/getMine", "/api/run/admins/items/addItem", "/api/query", "/api/mutation", "/files/{fileId}", "/health", "/api/openapi.json"} {
		if doc.Paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
	if doc.Paths["/api/run/stores/items/internalOnly"] != nil {
		t.Error("an internal operation is in the document")
	}
	for _, s := range []string{"stores.items.listItems.Args", "stores.items.listItems.Returns", "Error", "ErrorCode", "ConvexFailure"} {
		if doc.Components.Schemas[s] == nil {
			t.Errorf("no schema %s", s)
		}
	}
	run := doc.Paths["/api/run/admins/items/addItem"]["post"].(map[string]any)
	if sec := run["security"].([]any); len(sec) != 1 || !strings.Contains(mustString(sec[0]), `"admin"`) {
		t.Errorf("admin security: %v", sec)
	}
	if params, _ := run["parameters"].([]any); len(params) != 1 || !strings.Contains(mustString(params[0]), "IdempotencyKey") {
		t.Errorf("mutation parameters: %v", params)
	}
	ext := run["x-marketplace"].(map[string]any)
	if ext["endpoint"] != "/api/mutation" || ext["convexName"] != "admins/items:addItem" {
		t.Errorf("x-marketplace: %v", ext)
	}
	file := doc.Paths["/files/{fileId}"]["get"].(map[string]any)
	responses := file["responses"].(map[string]any)
	for _, status := range []string{"200", "401", "429", "503"} {
		if responses[status] == nil {
			t.Errorf("route: no %s", status)
		}
	}
}

func mustString(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestMarkdownListsReturnsAndInternalOperations(t *testing.T) {
	md := sample().Markdown([]string{"shop"})
	for _, want := range []string{"## Service `shop`", "### `GET /files/:fileId`", "### `stores.items.internalOnly`", "Returns:\n\n```ts\nPaginationResult<{", "Errors: INVALID_ARGUMENT (400)"} {
		if !strings.Contains(md, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
}

// TestDeprecatedOperation: an operation declared with ops.Deprecated is
// marked deprecated on both of its paths, with its note in the description,
// @deprecated in the TypeScript client and the note in the reference; the
// others are not marked.
func TestDeprecatedOperation(t *testing.T) {
	get := func(context.Context, *ops.NoArgs) (*itemView, error) { return nil, nil }
	r := ops.NewRegistry("shop",
		ops.NewQuery("stores.items.getOld", ops.Public, "The old one.", get, ops.Deprecated("replaced by stores.items.getNew")),
		ops.NewQuery("stores.items.getNew", ops.Public, "The new one.", get),
	)
	var list []Operation
	for _, d := range r.Describe() {
		list = append(list, Operation{Service: "shop", Descriptor: d})
	}
	a := New(list, nil)
	b, err := a.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Deprecated  bool   `json:"deprecated"`
			Description string `json:"description"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/run/stores/items/getOld", "/api/query/stores/items/getOld"} {
		op := doc.Paths[p]["post"]
		if !op.Deprecated || !strings.Contains(op.Description, "**Deprecated**: replaced by stores.items.getNew.") {
			t.Errorf("%s: deprecated %v, description %q", p, op.Deprecated, op.Description)
		}
	}
	for _, p := range []string{"/api/run/stores/items/getNew", "/api/query/stores/items/getNew"} {
		if op := doc.Paths[p]["post"]; op.Deprecated || strings.Contains(op.Description, "Deprecated") {
			t.Errorf("%s is marked deprecated", p)
		}
	}
	dts, _ := a.TypeScript()
	if strings.Count(dts, "@deprecated") != 1 || !strings.Contains(dts, "* @deprecated replaced by stores.items.getNew.\n       */\n      getOld:") {
		t.Errorf("api.d.ts:\n%s", dts)
	}
	if md := a.Markdown([]string{"shop"}); strings.Count(md, "**Deprecated**: replaced by stores.items.getNew.") != 1 {
		t.Errorf("reference:\n%s", md)
	}
}

// TestOpenAPIEntriesNamedAndGrouped: the reference's sidebar shows each
// entry by its summary, in its tags, in the x-tagGroups: every summary is
// the entry's path (the operation's path on its own path, its Convex name on
// /api/run, the HTTP path of a route), the declaration's text is the
// description, an operation's own path is tagged with its area and module
// in its area's group, its /api/run path with its area in the Convex group,
// last; every tag is declared, described and in exactly one group.
func TestOpenAPIEntriesNamedAndGrouped(t *testing.T) {
	b, err := sample().OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Summary     string   `json:"summary"`
		Description string   `json:"description"`
		Tags        []string `json:"tags"`
		Ext         struct {
			Path string `json:"path"`
		} `json:"x-marketplace"`
	}
	var doc struct {
		Tags []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			DisplayName string `json:"x-displayName"`
		} `json:"tags"`
		Groups []struct {
			Name string   `json:"name"`
			Tags []string `json:"tags"`
		} `json:"x-tagGroups"`
		Paths map[string]map[string]entry `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}

	wantGroups := []string{
		"admins: admins.items",
		"stores: stores.items",
		"Gateway and HTTP routes: gateway shop",
		"Convex clients: Convex clients: admins, Convex clients: stores, Convex clients: gateway",
	}
	var groups []string
	groupOf := map[string]string{}
	for _, g := range doc.Groups {
		sep := " "
		if g.Name == convexGroup {
			sep = ", "
		}
		groups = append(groups, g.Name+": "+strings.Join(g.Tags, sep))
		for _, tag := range g.Tags {
			if groupOf[tag] != "" {
				t.Errorf("tag %s is in groups %s and %s", tag, groupOf[tag], g.Name)
			}
			groupOf[tag] = g.Name
		}
	}
	if strings.Join(groups, "\n") != strings.Join(wantGroups, "\n") {
		t.Errorf("x-tagGroups:\n%s\nwant\n%s", strings.Join(groups, "\n"), strings.Join(wantGroups, "\n"))
	}
	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = true
		if tag.Description == "" || groupOf[tag.Name] == "" {
			t.Errorf("tag %s: description %q, group %q", tag.Name, tag.Description, groupOf[tag.Name])
		}
		if groupOf[tag.Name] == convexGroup && tag.DisplayName != strings.TrimPrefix(tag.Name, convexGroup+": ") {
			t.Errorf("tag %s is shown as %q", tag.Name, tag.DisplayName)
		}
	}
	if len(declared) != len(groupOf) {
		t.Errorf("%d tags declared, %d in groups", len(declared), len(groupOf))
	}

	want := map[string]entry{ // summary, the description's start, tag
		"/api/query/stores/items/listItems":     {Summary: "stores.items.listItems", Description: "Items of a store.", Tags: []string{"stores.items"}},
		"/api/query/stores/items/getMine":       {Summary: "stores.items.getMine", Description: "Mine.", Tags: []string{"stores.items"}},
		"/api/mutation/admins/items/addItem":    {Summary: "admins.items.addItem", Description: "Add one.", Tags: []string{"admins.items"}},
		"/api/run/stores/items/listItems":       {Summary: "stores/items:listItems", Description: "Items of a store.", Tags: []string{"Convex clients: stores"}},
		"/api/run/admins/items/addItem":         {Summary: "admins/items:addItem", Description: "Add one.", Tags: []string{"Convex clients: admins"}},
		"/api/run/{area}/{module}/{function}":   {Summary: "/api/run/{area}/{module}/{function}", Description: "A function path that names no public operation", Tags: []string{"Convex clients: gateway"}},
		"/api/query/{area}/{module}/{function}": {Summary: "/api/query/{area}/{module}/{function}", Description: "A path that names no public query", Tags: []string{"gateway"}},
		"/api/mutation":                         {Summary: "/api/mutation", Description: "Call a mutation by its path", Tags: []string{"gateway"}},
		"/files/{fileId}":                       {Summary: "/files/{fileId}", Tags: []string{"shop"}},
		"/health":                               {Summary: "/health", Description: "Liveness: ", Tags: []string{"gateway"}},
	}
	for path, item := range doc.Paths {
		for method, e := range item {
			name := strings.ToUpper(method) + " " + path
			switch {
			case strings.HasPrefix(path, "/api/run/") && e.Ext.Path != "":
				if e.Summary != ConvexName(e.Ext.Path) || groupOf[e.Tags[0]] != convexGroup {
					t.Errorf("%s: summary %q, tags %v", name, e.Summary, e.Tags)
				}
			case e.Ext.Path != "":
				if e.Summary != e.Ext.Path || len(e.Tags) != 1 || e.Tags[0] != OperationTag(e.Ext.Path) || groupOf[e.Tags[0]] != Area(e.Ext.Path) {
					t.Errorf("%s: summary %q, tags %v", name, e.Summary, e.Tags)
				}
			case e.Summary != path:
				t.Errorf("%s: summary %q, not its path", name, e.Summary)
			}
			if len(e.Tags) != 1 || !declared[e.Tags[0]] {
				t.Errorf("%s: tags %v, not one declared tag", name, e.Tags)
			}
			if (groupOf[e.Tags[0]] == convexGroup) != strings.HasPrefix(path, "/api/run/") {
				t.Errorf("%s is in the group %s", name, groupOf[e.Tags[0]])
			}
			if w, ok := want[path]; ok {
				delete(want, path)
				if e.Summary != w.Summary || !strings.HasPrefix(e.Description, w.Description) || strings.Join(e.Tags, ",") != strings.Join(w.Tags, ",") {
					t.Errorf("%s: summary %q, tags %v, description %q; want %q, %v, %q...", name, e.Summary, e.Tags, e.Description, w.Summary, w.Tags, w.Description)
				}
			}
		}
	}
	for path := range want {
		t.Errorf("no entry %s", path)
	}
}

// TestRawHTML: placeholders in code spans are text; outside them they are
// found (a renderer would take them for HTML tags), and the generated
// document has none. cell (docs/api.md's tables) escapes them outside code
// only.
func TestRawHTML(t *testing.T) {
	b, err := sample().OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if found, err := RawHTML(b); err != nil || len(found) != 0 {
		t.Errorf("the document: %v %v", found, err)
	}
	doc := `{"info": {"description": "POST /api/query/<area>/x and ` + "`POST /api/run/<area>`" + `, a <= b, 1 <2"},
		"paths": {"/x": {"post": {"summary": "` + "``a <b>``" + ` <c>", "responses": {"200": {"description": "` + "`<n>` and ``` <m> ```" + `"}}}}}}`
	found, err := RawHTML([]byte(doc))
	want := []string{`#/info/description: "POST /api/query/<area>/x and "`, `#/paths/~1x/post/summary: " <c>"`}
	if err != nil || strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("found %q (%v), want %q", found, err, want)
	}
	if got := cell("`t=<unix seconds>` or <n> | `a|b`"); got != "`t=<unix seconds>` or &lt;n&gt; \\| `a\\|b`" {
		t.Errorf("cell: %s", got)
	}
	if got := mapOutsideCode("a `` ` `` b ` c", strings.ToUpper); got != "A `` ` `` B ` C" {
		t.Errorf("mapOutsideCode: %s", got)
	}
}
