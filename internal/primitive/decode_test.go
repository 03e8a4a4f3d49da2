package primitive

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"webacq/internal/model"
)

func TestDecodeRequest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"url":"http://127.0.0.1/"}`, ""},
		{`{"url":"http://127.0.0.1/","formats":null,"onlyMainContent":null}`, ""},
		{``, "arguments is empty"},
		{`{"url":`, "arguments is truncated JSON"},
		{`{"url" "x"}`, "malformed JSON in arguments at byte"},
		{`{"url":1}`, `field "url" must be a string, not a number`},
		{`{"onlyMainContent":"yes"}`, `field "onlyMainContent" must be a boolean, not a string`},
		{`[1]`, "arguments must be a JSON object, not an array"},
		{`{"timeout":1.5}`, `field "timeout" must be a whole number, not 1.5`},
		{`{"timeout":"5000"}`, `field "timeout" must be a whole number, not a string`},
		{`{"nope":1}`, `unknown field "nope"`},
		{`{} {}`, "arguments must hold a single JSON object"},
		{`{} x`, "arguments must hold a single JSON object"},
	} {
		var req FetchRequest
		err := DecodeRequest(strings.NewReader(tt.in), &req, "arguments")
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.in, err)
			}
			continue
		}
		if model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want bad_request %q", tt.in, err, tt.want)
		}
	}
	big := `{"url":"` + strings.Repeat("a", MaxRequestBytes) + `"}`
	var req FetchRequest
	err := DecodeRequest(http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader(big)), MaxRequestBytes), &req, "request body")
	if !errors.Is(err, ErrRequestTooLarge) {
		t.Fatalf("oversized body: %v, want ErrRequestTooLarge", err)
	}
}
