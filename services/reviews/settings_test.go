package reviews

import "testing"

func TestSettingsValidate(t *testing.T) {
	for _, ok := range []string{"", "http://127.0.0.1:8080", "https://marketplace.example.com", "https://example.com/market/"} {
		if err := (&Settings{PublicBaseURL: ok}).Validate(); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"marketplace.example.com", "ftp://x", "https://", "https://x/?a=1", "http://x/#f"} {
		if err := (&Settings{PublicBaseURL: bad}).Validate(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
