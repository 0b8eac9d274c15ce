package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionNamesAreOnlyOperationPaths: the bash completion hands the
// words of `ops --names` to compgen -W, which expands them as the shell
// does ($(...) runs). The names come from the gateway at --url, so
// `ops --names` prints only what an operation path can be (letters, digits
// and _ between dots): a gateway answering a path such as $(touch x) must
// not run a command in the shell of whoever presses Tab.
func TestCompletionNamesAreOnlyOperationPaths(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"path":"stores.reviews.addReview","kind":"mutation","access":"customer","service":"reviews","args":[]},` +
			`{"path":"$(touch ` + marker + `)","kind":"query","access":"public","service":"x","args":[]},` +
			`{"path":"a.` + "`touch " + marker + "`" + `","kind":"query","access":"public","service":"x","args":[]},` +
			`{"path":"a.b\u001b[2J","kind":"query","access":"public","service":"x","args":[]}]`))
	}))
	defer gw.Close()
	var out, errOut bytes.Buffer
	err := runCLI(context.Background(), []string{"ops", "--names", "--url", gw.URL},
		&cli{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut})
	if err != nil {
		t.Fatalf("ops --names: %v %s", err, errOut.String())
	}
	if got := out.String(); got != "stores.reviews.addReview\n" {
		t.Errorf("ops --names printed %q, want only the operation path", got)
	}
	// What the completion does with the words, in bash when there is one.
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	cmd := exec.Command(bash, "-c", `COMPREPLY=($(compgen -W "$1" -- "")); printf '%s\n' "${COMPREPLY[@]}"`, "bash", out.String())
	if b, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(b)) != "stores.reviews.addReview" {
		t.Errorf("compgen: %v %s", err, b)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("completing ran a command the gateway named")
	}
}
