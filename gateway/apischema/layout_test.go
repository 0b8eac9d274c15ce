package apischema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The document's layout (indentTo): members down to a depth on lines of
// their own, compact below; only white space outside strings changes, so the
// document says exactly what the fully indented one said.
func TestIndentToLaysOutOnlyWhiteSpace(t *testing.T) {
	in := `{"a":{"b":{"c":[1,{"d":"x"}],"e":{}},"f":[]},"s":"{\"q\":[1,2]},\\ : <b>","t":true}` + "\n"
	want := strings.Join([]string{
		`{`,
		`  "a": {`,
		`    "b": {"c":[1,{"d":"x"}],"e":{}},`,
		`    "f": []`,
		`  },`,
		`  "s": "{\"q\":[1,2]},\\ : <b>",`,
		`  "t": true`,
		`}`,
		``,
	}, "\n")
	got := indentTo([]byte(in), 2)
	if string(got) != want {
		t.Fatalf("depth 2:\n%s\nwant:\n%s", got, want)
	}
	for depth := range 6 {
		out := indentTo([]byte(in), depth)
		var c bytes.Buffer
		if err := json.Compact(&c, out); err != nil {
			t.Fatalf("depth %d: not JSON: %v\n%s", depth, err, out)
		}
		if c.String() != strings.TrimSuffix(in, "\n") {
			t.Errorf("depth %d: %s, want the same value as %s", depth, c.String(), in)
		}
		var full, fromIn bytes.Buffer
		_ = json.Indent(&full, out, "", "  ")
		_ = json.Indent(&fromIn, []byte(in), "", "  ")
		if full.String() != fromIn.String() {
			t.Errorf("depth %d: fully indented, it differs from the input fully indented", depth)
		}
	}
	if got := string(indentTo([]byte(in), 0)); got != in {
		t.Errorf("depth 0: %s, want it compact", got)
	}
}

// The OpenAPI document is laid out to layoutDepth: valid JSON, nothing
// indented deeper, and the fully indented form of what it was before.
func TestOpenAPIDocumentIsLaidOutToItsDepth(t *testing.T) {
	b, err := sample().OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) || !bytes.HasSuffix(b, []byte("}\n")) {
		t.Fatalf("not one JSON value and a newline:\n%s", b)
	}
	deepest := 0
	for _, line := range strings.Split(string(b), "\n") {
		n := len(line) - len(strings.TrimLeft(line, " "))
		deepest = max(deepest, n)
	}
	if deepest != 2*layoutDepth {
		t.Errorf("the deepest line is indented %d spaces, want %d (layoutDepth %d)", deepest, 2*layoutDepth, layoutDepth)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	if len(compact.Bytes()) < len(b)*3/4 {
		t.Errorf("%d bytes for %d of JSON: more white space than the layout's", len(b), compact.Len())
	}
}
