//go:build !faultpoints

package liveset

// perWriteTracking selects the MongoDB path of live write records (each
// write reads its documents' keys) on the embedded engine too: false but in
// the fault-point build (faultpoints.go), whose crash tests run both paths.
const perWriteTracking = false
