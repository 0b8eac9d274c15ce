//go:build !nextversion

package events

// NextPayloadField is the field a nextversion build adds to every event
// payload ("" in the default build: nextversion.go).
const NextPayloadField = ""

func withNextPayload(data []byte) []byte { return data }
