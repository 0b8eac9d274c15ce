package convex

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/libs/apperr"
)

// The sync protocol's messages on the wire: what clients send, what the
// socket answers, and how a socket ends (closing).

// clientMessage is any client message; Type says which fields it uses.
type clientMessage struct {
	Type string `json:"type"`
	// Connect
	SessionID            string  `json:"sessionId"`
	MaxObservedTimestamp *string `json:"maxObservedTimestamp"`
	ClientTs             *int64  `json:"clientTs"`
	// Authenticate (and ModifyQuerySet's baseVersion)
	TokenType   string  `json:"tokenType"`
	Value       string  `json:"value"`
	BaseVersion *uint32 `json:"baseVersion"`
	// ModifyQuerySet
	NewVersion    *uint32             `json:"newVersion"`
	Modifications []queryModification `json:"modifications"`
	// Mutation, Action
	RequestID     *uint32         `json:"requestId"`
	UdfPath       string          `json:"udfPath"`
	Args          json.RawMessage `json:"args"`
	ComponentPath *string         `json:"componentPath"`
}

type queryModification struct {
	Type          string          `json:"type"`
	QueryID       *uint32         `json:"queryId"`
	UdfPath       string          `json:"udfPath"`
	Args          json.RawMessage `json:"args"`
	ComponentPath *string         `json:"componentPath"`
}

type stateVersion struct {
	QuerySet uint32 `json:"querySet"`
	Identity uint32 `json:"identity"`
	TS       string `json:"ts"`
	ts       uint64
}

// encodeTransition writes a Transition. The modifications are JSON already
// (a value is checked once, when its service answers), so they are copied,
// not encoded again: a value shared by a thousand subscriptions costs a copy
// each, not a parse.
func encodeTransition(start, end stateVersion, mods []json.RawMessage, skew *int64) []byte {
	n := 200
	for _, m := range mods {
		n += len(m) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"type":"Transition","startVersion":`...)
	b = appendVersion(b, start)
	b = append(b, `,"endVersion":`...)
	b = appendVersion(b, end)
	b = append(b, `,"modifications":[`...)
	for i, m := range mods {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, `],"clientClockSkew":`...)
	if skew == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *skew, 10)
	}
	b = append(b, `,"serverTs":`...)
	b = strconv.AppendInt(b, time.Now().UnixNano(), 10)
	return append(b, '}')
}

func appendVersion(b []byte, v stateVersion) []byte {
	b = append(b, `{"querySet":`...)
	b = strconv.AppendUint(b, uint64(v.QuerySet), 10)
	b = append(b, `,"identity":`...)
	b = strconv.AppendUint(b, uint64(v.Identity), 10)
	b = append(b, `,"ts":"`...)
	b = append(b, v.TS...) // base64: nothing to escape
	return append(b, `"}`...)
}

// updatedModification is a QueryUpdated; value is valid JSON.
func updatedModification(id uint32, value json.RawMessage) json.RawMessage {
	b := make([]byte, 0, len(value)+80)
	b = append(b, `{"type":"QueryUpdated","queryId":`...)
	b = strconv.AppendUint(b, uint64(id), 10)
	b = append(b, `,"value":`...)
	b = append(b, value...)
	return append(b, `,"logLines":[],"journal":null}`...)
}

type queryFailed struct {
	Type         string          `json:"type"`
	QueryID      uint32          `json:"queryId"`
	ErrorMessage string          `json:"errorMessage"`
	LogLines     []string        `json:"logLines"`
	Journal      *string         `json:"journal"`
	ErrorData    json.RawMessage `json:"errorData"`
}

type queryRemoved struct {
	Type    string `json:"type"`
	QueryID uint32 `json:"queryId"`
}

// functionResponse is a MutationResponse or an ActionResponse.
type functionResponse struct {
	Type      string          `json:"type"`
	RequestID uint32          `json:"requestId"`
	Success   bool            `json:"success"`
	Result    json.RawMessage `json:"result"`
	TS        *string         `json:"ts,omitempty"`
	LogLines  []string        `json:"logLines"`
	ErrorData json.RawMessage `json:"errorData,omitempty"`
}

func failedModification(id uint32, e *apperr.Error) json.RawMessage {
	return mustJSON(queryFailed{Type: "QueryFailed", QueryID: id, ErrorMessage: e.Message, LogLines: []string{}, ErrorData: errorData(e)})
}

// closing ends a socket. As Convex's sync endpoint does: with a last message,
// an AuthError or, for a request the client must not repeat (a bad request),
// a FatalError, after which convex-js gives up; or with only a close frame
// (code and reason) for anything else, after which it reconnects with its
// whole state after a backoff chosen by the reason's prefix:
// TooManyConcurrentRequests (the per-caller limits; 3 s),
// TooManyConcurrentMutations (Convex's own, rate limited; 1 s), and
// InternalServerError for protocol states a real client never reaches
// (duplicate query id, removing an unknown one, versions that go backwards;
// Convex's internal errors, 1011; 1 s).
type closing struct {
	auth      bool
	code      int // a close frame of this code, message its reason; no last message
	message   string
	attempted bool // AuthError: in answer to an Authenticate
}

func (e *closing) Error() string { return e.message }

func fatal(format string, args ...any) *closing {
	return &closing{message: fmt.Sprintf(format, args...)}
}

// overLimit closes for a reconnect later (code 1013).
func overLimit(format string, args ...any) *closing {
	return &closing{code: fws.CloseTryAgainLater, message: fmt.Sprintf(format, args...)}
}

// inconsistent closes for a reconnect (code 1011), as Convex's internal errors.
func inconsistent(format string, args ...any) *closing {
	return &closing{code: fws.CloseInternalServerErr, message: "InternalServerError: " + fmt.Sprintf(format, args...)}
}

func decodeClientMessage(raw []byte) (clientMessage, error) {
	var m clientMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fatal("Received Invalid JSON on websocket: %v", err)
	}
	return m, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own message types are marshalled
	}
	return b
}

func deref(p *uint32) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
