package convex

// The sync protocol version. convex-js opens its socket on
// /api/<its package version>/sync ("/api/1.48.0/sync"); a Convex deployment
// answers a client version it no longer supports with ClientVersionUnsupported
// (a 400 with that code, before the upgrade). The layer speaks the protocol of
// convex-js 1.x as of PinnedClient, the version its tests run, and accepts
// the 1.x releases from MinClient on; it refuses the others at connect.
//
// A refused socket is upgraded and then answered with a FatalError
// ("ClientVersionUnsupported: ...") and closed, instead of a 400 before the
// upgrade: a browser does not show a WebSocket client the answer to a refused
// handshake, so convex-js would see only a bare close (1006) and reconnect
// forever; a FatalError it logs, with the message, and stops.
//
// /api/sync (no version in the path) is accepted: the clients that open it
// (Convex's Rust and Python clients, and other tools) state no version the
// layer could check, Convex serves it too, and the messages themselves are
// checked as from any client (a message the layer does not know ends the
// socket with a FatalError).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// PinnedClient is the convex npm package the layer's tests run (the
// contract tests of deploy/convextest run the same).
const PinnedClient = "1.48.0"

// minClient is the oldest convex-js accepted: the oldest the tests cover.
var minClient = [3]int{1, 48, 0}

// refusedKey marks (in a request's locals) a socket refused for its client
// version, with the FatalError's message.
const refusedKey = "convex.refusedVersion"

// checkVersion reads the client version of /api/<version>/sync; a version
// the layer does not speak is marked, and its socket refused once open.
func (x *Layer) checkVersion(c *fiber.Ctx) error {
	if msg := versionRefusal(c.Params("version")); msg != "" {
		c.Locals(refusedKey, msg)
	}
	return c.Next()
}

// versionRefusal is why the layer does not speak the sync protocol of
// client version v ("" when it does).
func versionRefusal(v string) string {
	core, _, _ := strings.Cut(v, "-") // a pre-release (1.49.0-alpha.1) is its release's protocol
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	var n [3]int
	ok := len(parts) == 3
	for i := 0; ok && i < 3; i++ {
		d, err := strconv.Atoi(parts[i])
		ok = err == nil && d >= 0 && parts[i] == strconv.Itoa(d)
		n[i] = d
	}
	if !ok || len(v) > 64 {
		return fmt.Sprintf("InvalidVersion: %.64q is not a client version: open /api/<version of the convex npm package>/sync, e.g. /api/%s/sync",
			v, PinnedClient)
	}
	if n[0] != minClient[0] || n[1] < minClient[1] || (n[1] == minClient[1] && n[2] < minClient[2]) {
		return fmt.Sprintf("ClientVersionUnsupported: the convex npm package at version %s is not supported by this server, "+
			"which speaks the sync protocol of convex %d.x from %d.%d.%d on (tested with %s): install convex@%s",
			v, minClient[0], minClient[0], minClient[1], minClient[2], PinnedClient, PinnedClient)
	}
	return ""
}
