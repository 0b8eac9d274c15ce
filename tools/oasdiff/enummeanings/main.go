// Command enummeanings judges what oasdiff cannot: whether a value of an
// enum in a published contract changed its meaning. Each contract document
// carries x-enum-meanings (name -> value -> meaning, written by
// gateway/apischema.AddEnumMeanings); a value whose meaning differs from the
// snapshot's, or an enum whose meanings are gone while the snapshot had them,
// is a breaking change: a value that comes to mean something else must be a
// new value. Added enums, values and meanings pass.
//
//	enummeanings BASE.json NEW.json
//
// exits 1 and names each change on a breaking one, 2 on unreadable input.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

const key = "x-enum-meanings"

func load(path string) (map[string]map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]map[string]string{}
	if raw, ok := doc[key]; ok {
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, key, err)
		}
	}
	return out, nil
}

// breaks lists the meaning changes from base to next, sorted.
func breaks(base, next map[string]map[string]string) []string {
	var out []string
	for name, values := range base {
		nv, ok := next[name]
		if !ok {
			out = append(out, fmt.Sprintf("enum %s: its meanings are gone (a removed enum is a removed field or argument; a renamed one keeps its name here)", name))
			continue
		}
		for v, meaning := range values {
			now, ok := nv[v]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("enum %s: value %q is gone", name, v))
			case now != meaning:
				out = append(out, fmt.Sprintf("enum %s: value %q changed its meaning from %q to %q (a new meaning is a new value)", name, v, meaning, now))
			}
		}
	}
	sort.Strings(out)
	return out
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: enummeanings BASE.json NEW.json")
		os.Exit(2)
	}
	base, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "enummeanings:", err)
		os.Exit(2)
	}
	next, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "enummeanings:", err)
		os.Exit(2)
	}
	if b := breaks(base, next); len(b) > 0 {
		for _, l := range b {
			fmt.Println("error\t[enum-value-meaning-changed]\t" + l)
		}
		os.Exit(1)
	}
}
