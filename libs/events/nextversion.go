//go:build nextversion

package events

import (
	"bytes"
	"encoding/json"
)

// The nextversion build tag makes this code the simulated next release of
// itself (libs/ops/nextversion.go says what else it adds): every event
// payload that is a JSON object carries one more field, NextPayloadField, as
// a compatible release adding a payload field would. Consumers of the
// current release ignore fields they do not know.

// NextPayloadField is the field a nextversion build adds to every event
// payload ("" in the default build).
const NextPayloadField = "nextVersionField"

const nextPayloadValue = "added by the next version"

// withNextPayload adds NextPayloadField first in a payload object (other
// payloads, and one that has the field already, are returned unchanged).
func withNextPayload(data []byte) []byte {
	data = bytes.TrimSpace(data)
	if len(data) < 2 || data[0] != '{' {
		return data
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return data
	}
	if _, ok := probe[NextPayloadField]; ok {
		return data
	}
	field, _ := json.Marshal(map[string]string{NextPayloadField: nextPayloadValue})
	rest := bytes.TrimSpace(data[1:])
	out := append([]byte{}, field[:len(field)-1]...)
	if rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}
