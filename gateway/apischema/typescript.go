package apischema

import (
	"fmt"
	"regexp"
	"strings"

	"marketplace/libs/ops"
)

// The typed client: an `api` object in the shape of the one Convex generates
// (convex/_generated/api.d.ts), declared from the registries instead of from
// TypeScript sources. api.stores.reviews.addReview is a
// FunctionReference<"mutation", "public", Args, Return> that Convex's own
// clients (ConvexHttpClient, ConvexClient, ConvexReactClient's useQuery,
// useMutation, usePaginatedQuery) accept and type-check; at run time it is
// Convex's anyApi, which turns the property path into the function name
// "stores/reviews:addReview" that the gateway routes.

const tsHeader = `/* eslint-disable */
/**
 * The marketplace's typed API for Convex clients.
 *
 * Generated from the services' operation declarations; do not edit.
 * Regenerate with ` + "`UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestTypeScriptClientIsGenerated`" + `.
 *
 * Usage:
 * ` + "```ts" + `
 * import { ConvexHttpClient } from "convex/browser";
 * import { api } from "@marketplace/api";
 *
 * const client = new ConvexHttpClient("http://127.0.0.1:8080");
 * const cities = await client.query(api.catalog.locations.listCities, {});
 * ` + "```" + `
 */
`

// TypeScript renders api.d.ts (the declarations) and api.js (the runtime
// object) of the typed client.
func (a *API) TypeScript() (dts, js string) {
	root := &tsNode{}
	for _, o := range a.Operations {
		root.add(strings.Split(o.Path, "."), o)
	}
	var b strings.Builder
	b.WriteString(tsHeader)
	b.WriteString(`import type { FunctionReference, PaginationOptions, PaginationResult } from "convex/server";` + "\n\n")
	b.WriteString("/**\n * Every public operation, by its path: `api.<area>.<module>.<function>`.\n */\n")
	b.WriteString("export declare const api: ")
	root.write(&b, "")
	b.WriteString(";\n\n/** The type of `api`. */\nexport type Api = typeof api;\n")
	dts = b.String()

	js = `/* eslint-disable */
/**
 * The marketplace's typed API for Convex clients: the runtime object. Its
 * types are in api.d.ts.
 *
 * Generated from the services' operation declarations; do not edit.
 */
import { anyApi } from "convex/server";

/**
 * Every public operation, by its path: ` + "`api.<area>.<module>.<function>`" + ` is
 * a function reference named "<area>/<module>:<function>".
 */
export const api = anyApi;
`
	return dts, js
}

// tsNode is one level of the api object: modules inside, or an operation.
type tsNode struct {
	names    []string
	children map[string]*tsNode
	op       *Operation
}

func (n *tsNode) add(parts []string, o Operation) {
	if len(parts) == 0 {
		n.op = &o
		return
	}
	if n.children == nil {
		n.children = map[string]*tsNode{}
	}
	c, ok := n.children[parts[0]]
	if !ok {
		c = &tsNode{}
		n.children[parts[0]] = c
		n.names = append(n.names, parts[0])
	}
	c.add(parts[1:], o)
}

func (n *tsNode) write(b *strings.Builder, indent string) {
	b.WriteString("{\n")
	in := indent + "  "
	for _, name := range n.names {
		c := n.children[name]
		if c.op != nil {
			o := c.op
			fmt.Fprintf(b, "%s/**\n", in)
			for _, line := range wrap(o.Summary, 76-len(in)) {
				fmt.Fprintf(b, "%s * %s\n", in, line)
			}
			fmt.Fprintf(b, "%s *\n%s * %s; access `%s`. Runs as `%s` (POST %s).\n", in, in, kindTitle(o.Kind), o.Access, ConvexName(o.Path), RunPath(o.Path))
			if o.Deprecated != "" {
				fmt.Fprintf(b, "%s *\n", in)
				for _, line := range wrap("@deprecated "+o.Deprecated+".", 76-len(in)) {
					fmt.Fprintf(b, "%s * %s\n", in, line)
				}
			}
			fmt.Fprintf(b, "%s */\n", in)
			fmt.Fprintf(b, "%s%s: FunctionReference<\n%s  %q,\n%s  \"public\",\n%s  %s,\n%s  %s\n%s>;\n",
				in, tsKey(name), in, string(o.Kind), in, in, tsArgs(o.ArgsSchema, in+"  "), in, tsType(o.Returns, false, in+"  "), in)
			continue
		}
		fmt.Fprintf(b, "%s%s: ", in, tsKey(name))
		c.write(b, in)
		b.WriteString(";\n")
	}
	b.WriteString(indent + "}")
}

func kindTitle(k ops.Kind) string {
	if k == ops.Mutation {
		return "Mutation"
	}
	return "Query"
}

var tsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func tsKey(name string) string {
	if tsIdent.MatchString(name) {
		return name
	}
	return fmt.Sprintf("%q", name)
}

// tsArgs is the arguments type: Convex's empty-object type for operations
// without arguments, so clients may leave them out.
func tsArgs(s *ops.Schema, indent string) string {
	if s == nil || len(s.Properties) == 0 {
		return "Record<string, never>"
	}
	return tsType(s, true, indent)
}

// tsType is the TypeScript type of a schema. Argument objects mark optional
// fields with ?, and so do return objects for fields that may be left out.
func tsType(s *ops.Schema, args bool, indent string) string {
	if s == nil || s.Unknown != "" || len(s.Type) == 0 {
		return "any"
	}
	var parts []string
	for _, t := range s.Type {
		parts = append(parts, tsOne(s, t, args, indent))
	}
	return strings.Join(parts, " | ")
}

func tsOne(s *ops.Schema, t string, args bool, indent string) string {
	switch t {
	case "null":
		return "null"
	case "boolean":
		return "boolean"
	case "number", "integer":
		return "number"
	case "string":
		if len(s.Enum) > 0 {
			lits := make([]string, len(s.Enum))
			for i, e := range s.Enum {
				lits[i] = fmt.Sprintf("%q", e)
			}
			return strings.Join(lits, " | ")
		}
		return "string"
	case "array":
		return "Array<" + tsType(s.Items, args, indent) + ">"
	case "object":
		switch {
		case s.Title == ops.TitlePaginationOpts:
			return "PaginationOptions"
		case s.Title == ops.TitlePaginationResult && s.Properties.Get("page") != nil:
			return "PaginationResult<" + tsType(s.Properties.Get("page").Items, args, indent) + ">"
		case s.AdditionalProperties != nil:
			return "Record<string, " + tsType(s.AdditionalProperties, args, indent) + ">"
		case s.Properties == nil:
			return "Record<string, any>"
		case len(s.Properties) == 0:
			return "Record<string, never>"
		}
		var b strings.Builder
		b.WriteString("{\n")
		in := indent + "  "
		for _, p := range s.Properties {
			if p.Schema.Description != "" {
				fmt.Fprintf(&b, "%s/** %s */\n", in, strings.ReplaceAll(p.Schema.Description, "*/", "* /"))
			}
			opt := "?"
			if contains(s.Required, p.Name) {
				opt = ""
			}
			fmt.Fprintf(&b, "%s%s%s: %s;\n", in, tsKey(p.Name), opt, tsType(p.Schema, args, in))
		}
		b.WriteString(indent + "}")
		return b.String()
	}
	return "any"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// wrap splits text into lines of at most width characters (words kept whole).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
