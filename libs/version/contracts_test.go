package version

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAcceptedMatchesSnapshot: the versions compiled into every program are
// those contracts/ACCEPTED records (make contracts-accept writes both).
func TestAcceptedMatchesSnapshot(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "contracts", "ACCEPTED"))
	if err != nil {
		t.Fatal(err)
	}
	got := Contracts{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "public":
			got.Public = f[1]
		case "internal":
			got.Internal = f[1]
		case "events":
			got.Events = f[1]
		}
	}
	if got != accepted {
		t.Fatalf("contracts/ACCEPTED has %+v, contracts_gen.go %+v: run make contracts-accept (it writes both)", got, accepted)
	}
	for _, v := range []string{accepted.Public, accepted.Internal, accepted.Events} {
		if _, err := ParseSemver(v); err != nil {
			t.Error(err)
		}
	}
}

func TestBuiltContracts(t *testing.T) {
	built := BuiltContracts()
	if !NextVersion && built != accepted {
		t.Fatalf("the default build declares %+v, not the accepted %+v", built, accepted)
	}
	if NextVersion {
		a, _ := ParseSemver(accepted.Internal)
		b, _ := ParseSemver(built.Internal)
		if b.Major != a.Major || b.Minor != a.Minor+1 || b.Patch != 0 {
			t.Fatalf("the next version declares internal %s, accepted %s", built.Internal, accepted.Internal)
		}
	}
}

func TestParseSemver(t *testing.T) {
	for _, ok := range []string{"1.0.0", "0.12.3", "10.0.1"} {
		if s, err := ParseSemver(ok); err != nil || s.String() != ok {
			t.Errorf("%q: %v %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "1", "1.0", "v1.0.0", "1.0.0-rc1", "1.-1.0", "01.0.0", "a.b.c", "1.0.0.0"} {
		if _, err := ParseSemver(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if got := nextMinor("1.4.2"); got != "1.5.0" {
		t.Errorf("nextMinor = %s", got)
	}
	if got := (Contracts{Public: "2.0.0"}).OrLegacy(); got != (Contracts{Public: "2.0.0", Internal: "1.0.0", Events: "1.0.0"}) {
		t.Errorf("OrLegacy = %+v", got)
	}
}
