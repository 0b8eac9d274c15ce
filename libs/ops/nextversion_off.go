//go:build !nextversion

package ops

import "encoding/json"

// The default build: none of what the nextversion tag adds (nextversion.go).
// These return what they get, and the compiler inlines them away.

const nextArg = ""

// NextAnswerField is the field a nextversion build adds to every answer ("" in
// the default build).
const NextAnswerField = ""

func withNextArg(raw []byte) []byte { return raw }

// encodeAnswer is an operation's answer as JSON.
func encodeAnswer(res any) ([]byte, error) { return json.Marshal(res) }

func acceptNextArg(Access, *[]byte) error { return nil }

func declareNext(*Descriptor) {}
