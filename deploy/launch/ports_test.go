package launch

import (
	"net"
	"strconv"
	"testing"
)

// The services' ports come from below the kernel's ephemeral range, where no
// outgoing connection takes one between the launcher's pick and the
// program's bind; they are distinct and free.
func TestFreePortsAreBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < 10000 || p >= low || seen[p] {
			t.Fatalf("port %d: want distinct ports in [10000, %d): %v", p, low, ports)
		}
		seen[p] = true
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		ln.Close()
	}
}
