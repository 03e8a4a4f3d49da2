// Package model holds the domain types and error codes shared by every layer.
// It imports only the standard library.
package model

import (
	"errors"
	"fmt"
	"time"
)

// Error codes of the API envelope (service spec section 7, DECISIONS.md).
const (
	CodeBadRequest       = "bad_request"
	CodeUnauthorized     = "unauthorized"
	CodeCreditsExhausted = "credits_exhausted"
	CodeForbidden        = "forbidden"
	CodeForbiddenURL     = "forbidden_url"
	CodeNotFound         = "not_found"
	CodeConflict         = "conflict"
	CodeRateLimited      = "rate_limited"
	CodeUpstreamError    = "upstream_error"
	CodeUnavailable      = "unavailable"
	CodeTimeout          = "timeout"
	CodeInternal         = "internal"
)

// Error is an error with a code, born where the failure is understood.
// Message is safe to show to a client; Err is the internal cause and never is.
type Error struct {
	Code    string
	Message string
	Err     error
	// RetryAfter, when set, tells the client when to try again.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a client-safe formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with a client-safe message and an internal cause.
func Wrap(code string, err error, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// ErrorCode returns the code of err, or CodeInternal when it carries none.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-safe message of err. Errors without a code
// are internal and answer a generic message, never their text.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// Status is the HTTP status of an error code (DECISIONS.md), in one place
// for the REST API, the MCP endpoint and the ledger.
func Status(code string) int {
	switch code {
	case "":
		return 200
	case CodeBadRequest:
		return 400
	case CodeUnauthorized:
		return 401
	case CodeCreditsExhausted:
		return 402
	case CodeForbidden, CodeForbiddenURL:
		return 403
	case CodeNotFound:
		return 404
	case CodeConflict:
		return 409
	case CodeRateLimited:
		return 429
	case CodeUpstreamError:
		return 502
	case CodeUnavailable:
		return 503
	case CodeTimeout:
		return 504
	}
	return 500
}
