package mcp

import (
	"net/http/httptest"
	"testing"
)

func TestIntegral(t *testing.T) {
	t.Parallel()
	for num, want := range map[string]bool{
		"0": true, "-0": true, "7": true, "7.0": true, "7.5": false, "1e30": true, "1E+2": true, "1.5e1": true,
		"15e-1": false, "150e-1": true, "12300e-2": true, "12345e-2": false, "123.450e1": false, "0.000": true,
		"0e-5": true, "-0.5e1": true, "0.5": false, "92233720368547758070": true,
		"1e99999999999999999999": true, "1e-99999999999999999999": false, "5e4294967297": true, "5e-4294967297": false,
	} {
		if got := integral(num); got != want {
			t.Errorf("integral(%s) = %v, want %v", num, got, want)
		}
	}
}

func TestCheckID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw, id, sdkID string // id "": refused
	}{
		{"42", "42", "42"},
		{"-9007199254740992", "-9007199254740992", "-9007199254740992"},
		{"9007199254740993", "9007199254740993", substituteID},
		{"92233720368547758070", "92233720368547758070", substituteID},
		{"1e30", "1e30", substituteID},
		{"7.0", "7.0", substituteID},
		{"-0", "-0", substituteID},
		{`"a"`, `"a"`, `"a"`},
		{`"\u0041"`, `"A"`, `"A"`},
		{`"webacq-substitute-id"`, `"webacq-substitute-id"`, `"webacq-substitute-id"`},
		{"1.5", "", ""}, {"null", "", ""}, {"true", "", ""}, {"{}", "", ""}, {"[]", "", ""},
	} {
		id, sdkID, err := checkID([]byte(c.raw))
		if c.id == "" {
			if err == nil {
				t.Errorf("checkID(%s) accepted", c.raw)
			}
			continue
		}
		if err != nil || string(id) != c.id || string(sdkID) != c.sdkID {
			t.Errorf("checkID(%s) = %s, %s, %v; want %s, %s", c.raw, id, sdkID, err, c.id, c.sdkID)
		}
	}
}

// A client whose string id is the substitute's text gets its own id back,
// and an id the front never substituted is never rewritten.
func TestRestoreOnlySubstitutedIDs(t *testing.T) {
	t.Parallel()
	body := []byte(`{"jsonrpc":"2.0","id":"webacq-substitute-id","result":{}}`)
	w := &rpcWriter{ResponseWriter: httptest.NewRecorder(), id: []byte(`"webacq-substitute-id"`)}
	if got := w.fixResponse(body); string(got) != string(body) {
		t.Errorf("string id rewritten: %s", got)
	}
	w.id = []byte("1e30")
	if got := w.fixResponse(body); string(got) != `{"jsonrpc":"2.0","id":1e30,"result":{}}` {
		t.Errorf("substituted id not restored: %s", got)
	}
	if got := w.fixResponse([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"handling: *mcp.Foo"}}`)); string(got) !=
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}` {
		t.Errorf("error without a code kept: %s", got)
	}
}

func TestHostname(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Example.COM": "example.com", "example.com:8080": "example.com", "example.com.": "example.com",
		"[::1]:8080": "::1", "[::1]": "::1", "127.0.0.1:1": "127.0.0.1", "": "", " localhost ": "localhost",
	} {
		if got := hostname(in); got != want {
			t.Errorf("hostname(%q) = %q, want %q", in, got, want)
		}
	}
}
