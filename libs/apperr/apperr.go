// Package apperr is the one typed error every service returns, with the codes of
// the platform contract, mapped to HTTP statuses and to the error body in one place.
package apperr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Code is one of the platform contract's error codes.
type Code string

const (
	InvalidArgument    Code = "INVALID_ARGUMENT"
	Unauthenticated    Code = "UNAUTHENTICATED"
	PermissionDenied   Code = "PERMISSION_DENIED"
	NotFound           Code = "NOT_FOUND"
	AlreadyExists      Code = "ALREADY_EXISTS"
	FailedPrecondition Code = "FAILED_PRECONDITION"
	RateLimited        Code = "RATE_LIMITED"
	Unavailable        Code = "UNAVAILABLE"
	Internal           Code = "INTERNAL"
)

var statuses = map[Code]int{
	InvalidArgument:    http.StatusBadRequest,
	Unauthenticated:    http.StatusUnauthorized,
	PermissionDenied:   http.StatusForbidden,
	NotFound:           http.StatusNotFound,
	AlreadyExists:      http.StatusConflict,
	FailedPrecondition: http.StatusConflict,
	RateLimited:        http.StatusTooManyRequests,
	Unavailable:        http.StatusServiceUnavailable,
	Internal:           http.StatusInternalServerError,
}

// Status is the HTTP status of a code; unknown codes are internal errors.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error with a contract code, a human-readable message and optional details.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	cause   error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }
func (e *Error) Unwrap() error { return e.cause }

// New makes an error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap keeps cause for logs while the client sees only code and message.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), cause: cause}
}

// WithDetails attaches structured details (for example the offending field).
func (e *Error) WithDetails(d map[string]any) *Error { e.Details = d; return e }

// Invalid is the common bad-argument error naming the field.
func Invalid(field, format string, args ...any) *Error {
	return New(InvalidArgument, "%s: %s", field, fmt.Sprintf(format, args...)).WithDetails(map[string]any{"field": field})
}

// From returns the typed error inside err, or an internal error hiding err's text
// (bugs must not leak internals to clients).
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	// A write conflict that outlasted its retries (MongoDB's, or the embedded
	// engine's: both label it TransientTransactionError) wrote nothing, and
	// trying again is the cure: not a bug.
	var le interface{ HasErrorLabel(string) bool }
	if errors.As(err, &le) && le.HasErrorLabel("TransientTransactionError") {
		return &Error{Code: Unavailable, Message: "the data kept changing while this request was applied; nothing was written, try again",
			Details: map[string]any{"reason": "contention"}, cause: err}
	}
	return &Error{Code: Internal, Message: "internal error", cause: err}
}

// Describe is err's whole text for logs, the hidden cause included (Error()
// shows only what the client sees).
func Describe(err error) string {
	e := From(err)
	if e.cause == nil {
		return e.Error()
	}
	return e.Error() + ": " + e.cause.Error()
}

// CodeOf is the code of err (INTERNAL for untyped errors).
func CodeOf(err error) Code { return From(err).Code }

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

type body struct {
	Error *Error `json:"error"`
}

// Body renders the contract's error body { "error": { code, message, details? } }.
func Body(err error) (status int, payload []byte) {
	e := From(err)
	b, mErr := json.Marshal(body{Error: e})
	if mErr != nil {
		b = []byte(`{"error":{"code":"INTERNAL","message":"internal error"}}`)
	}
	return e.Code.Status(), b
}

// Parse reads an error body produced by Body (used by clients of other services);
// ok is false when payload is not such a body.
func Parse(status int, payload []byte) (e *Error, ok bool) {
	var b body
	if json.Unmarshal(payload, &b) != nil || b.Error == nil || b.Error.Code == "" {
		return nil, false
	}
	return b.Error, true
}
