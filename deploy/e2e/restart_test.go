package e2e

import (
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestDataSurvivesARestart runs the all-in-one on files, as `make run` does, stops
// it and starts it again on the same DATA_DIR: records and the development secret
// (so existing tokens) are still there.
func TestDataSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	var token, cityID string
	t.Run("first run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		token = s.Token("admin-1", "admin")
		st.MustOK(t, s.Mutation(token, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"})).Decode(t, &cityID)
	})
	t.Run("second run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		var cities []map[string]any
		st.MustOK(t, s.Query(token, "catalog.locations.listCities", nil)).Decode(t, &cities)
		if len(cities) != 1 || cities[0]["_id"] != cityID || cities[0]["name"] != "Dubai" {
			t.Fatalf("after restart: %v", cities)
		}
		st.Expect(t, s.Mutation(token, "admins.catalog.createCity", map[string]any{"name": "dubai", "nameArabic": "x"}), "ALREADY_EXISTS")
	})
}
