//go:build faultpoints

package liveset

import "os"

// perWriteTracking, in the fault-point build (crash tests of a real process:
// go build -tags faultpoints), is MARKETPLACE_FAULT_PER_WRITE=1: the embedded
// engine then records a transaction's live writes as on MongoDB, write by
// write, instead of from the engine's record of its changes.
var perWriteTracking = os.Getenv("MARKETPLACE_FAULT_PER_WRITE") == "1"
