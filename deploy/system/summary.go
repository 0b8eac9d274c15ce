package system

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"marketplace/libs/program"
)

// summary is what the start tells people: where the API, its reference,
// the console, the probes and the metrics answer, where the data is kept,
// and how the logs are written.
type summary struct {
	url, api, docs, openapi, admin, store, health, metrics, data, logs string
}

func newSummary(info Info, cfg program.Config, memory bool, logOut io.Writer) summary {
	b := info.BaseURL
	s := summary{
		url:     b,
		api:     b + "/api/query, " + b + "/api/mutation (POST; one path per operation under them)",
		docs:    b + "/docs",
		openapi: b + "/api/openapi.json",
		admin:   b + "/admin/",
		store:   b + "/store/",
		health:  b + "/livez, " + b + "/readyz",
		metrics: info.MetricsURL,
		logs:    cfg.LogFormatOf(logOut) + ", level " + strings.ToLower(cfg.LogLevel),
	}
	if s.metrics == "" {
		s.metrics = "not served (the default port is taken: set METRICS_ADDR)"
	}
	switch {
	case memory && cfg.MongoURI == "":
		s.data = "in memory (gone when the process ends)"
	case cfg.MongoURI != "":
		s.data = "MongoDB (MONGODB_URI), the rest under " + absDir(cfg.DataDir)
	default:
		s.data = absDir(cfg.DataDir)
	}
	return s
}

func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// attrs are the summary's addresses for the ready log line.
func (s summary) attrs() []any {
	return []any{"docs", s.docs, "openapi", s.openapi, "console", s.admin, "portal", s.store, "metrics", s.metrics, "data", s.data}
}

// print writes the summary, its first line the ready line people and
// scripts wait for: "marketplace ready at <url>".
func (s summary) print(w io.Writer) {
	fmt.Fprintf(w, "marketplace ready at %s\n", s.url)
	for _, row := range [][2]string{
		{"API", s.api},
		{"docs", s.docs + " (OpenAPI document: " + s.openapi + ")"},
		{"console", s.admin + " (store owners: " + s.store + ")"},
		{"health", s.health},
		{"metrics", s.metrics},
		{"data", s.data},
		{"logs", s.logs + " (LOG_FORMAT=text|json, LOG_LEVEL=debug|info|warn|error); Ctrl-C stops"},
	} {
		fmt.Fprintf(w, "  %-8s %s\n", row[0], row[1])
	}
}
