package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"marketplace/deploy/querylog"
	st "marketplace/deploy/systemtest"
)

// queryLog records the suite's queries (TestMain).
var queryLog *querylog.QueryLog

// TestMain runs the black-box suite with every query the services issue
// recorded at the store layer, then checks each against the indexes its
// service created (deploy/querylog/coverage.go): a query a production MongoDB
// would answer with a collection scan or an in-memory sort fails the suite,
// unless its code declares it meant to scan (store.Scan, with the reason).
func TestMain(m *testing.M) {
	queryLog = querylog.RecordQueries()
	code := m.Run()
	querylog.StopRecording()
	os.Exit(checkIndexCoverage(queryLog, code))
}

// TestQueriesAreRecorded: the services' queries and indexes reach the log
// through the store, so the coverage check above is not vacuous.
func TestQueriesAreRecorded(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	okID(t, s.Mutation(admin, "admins.catalog.createCity", map[string]any{"name": "Fujairah", "nameArabic": "الفجيرة"}))
	st.MustOK(t, s.Query("", "catalog.locations.listCities", nil))
	db := "" // "catalog", with a prefix on real servers (DB_NAME_PREFIX)
	for _, q := range queryLog.Queries() {
		if strings.HasSuffix(q.Database, "catalog") && q.Collection == "cities" && q.Op == "find" {
			db = q.Database
		}
	}
	if db == "" {
		t.Fatal("no find on catalog's cities recorded")
	}
	var uniqueName bool
	for _, ix := range queryLog.Indexes(db, "cities") {
		uniqueName = uniqueName || (ix.Name == "name_unique" && ix.Unique)
	}
	if !uniqueName {
		t.Errorf("catalog's cities indexes not recorded: %+v", queryLog.Indexes(db, "cities"))
	}
}

func checkIndexCoverage(log *querylog.QueryLog, code int) int {
	queries := log.Queries()
	problems := log.Check()
	if len(problems) == 0 {
		if testing.Verbose() {
			scans := 0
			for _, q := range queries {
				if q.Scan != "" {
					scans++
				}
			}
			fmt.Printf("index coverage: %d query shapes served by indexes or declared scans (%d declared)\n", len(queries), scans)
		}
		return code
	}
	fmt.Fprintf(os.Stderr, "\nindex coverage: %d of %d query shapes would not be served by an index on MongoDB "+
		"(add the index to the service's Indexes, or declare the scan at the query with store.Scan and a reason):\n\n", len(problems), len(queries))
	for _, p := range problems {
		fmt.Fprintf(os.Stderr, "  %s\n\n", p)
	}
	return 1
}
