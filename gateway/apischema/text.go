package apischema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The document's descriptions are Markdown, and a Markdown renderer reads
// <word> as an HTML tag: the reference (Scalar) drops it, so a placeholder
// written /api/query/<area>/<module>/<function> showed as /api/query///.
// Placeholders go in code spans, where angle brackets are text.

// mapOutsideCode applies f to the parts of s outside Markdown code spans (a
// run of backticks up to the next run of the same length), leaving the spans
// as they are.
func mapOutsideCode(s string, f func(string) string) string {
	var b strings.Builder
	text := 0 // start of the text not yet written
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := runLength(s, i)
		end := closingRun(s, i+n, n)
		if end < 0 {
			i += n // no closing run: literal backticks
			continue
		}
		b.WriteString(f(s[text:i]))
		b.WriteString(s[i : end+n])
		i = end + n
		text = i
	}
	b.WriteString(f(s[text:]))
	return b.String()
}

func runLength(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun is where the next run of exactly n backticks from i starts, or -1.
func closingRun(s string, i, n int) int {
	for i < len(s) {
		if s[i] != '`' {
			i++
			continue
		}
		m := runLength(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// htmlLike is what a Markdown renderer may take for HTML (a tag, a closing
// tag, a comment, an autolink) or that reads as a placeholder: "<" before
// anything but a space, "=" or a digit.
var htmlLike = regexp.MustCompile(`<[^\s=0-9<]`)

// RawHTML lists the places in an OpenAPI document's Markdown (every
// description and summary) where text outside code would be read as HTML:
// "JSON pointer: the text around it". The document must have none.
func RawHTML(doc []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var out []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "description" || k == "summary") {
					mapOutsideCode(s, func(t string) string {
						for _, m := range htmlLike.FindAllStringIndex(t, -1) {
							out = append(out, fmt.Sprintf("%s/%s: %q", at, k, t[max(0, m[0]-30):min(len(t), m[1]+30)]))
						}
						return t
					})
				}
				walk(x, at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(v, "#")
	sort.Strings(out)
	return out, nil
}
