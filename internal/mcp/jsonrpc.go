package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"webacq/internal/primitive"
)

// JSON-RPC error codes of the transport.
const (
	codeUnauthorized     = -32001
	codeMethodNotAllowed = -32000
	codeInternal         = -32603
	codeInvalidParams    = -32602
	codeMethodNotFound   = -32601
	codeInvalidRequest   = -32600
	codeParseError       = -32700
)

// servedMethods are the requests the endpoint answers; any other method is
// -32601. Notifications of any name answer 202.
var servedMethods = map[string]bool{"initialize": true, "ping": true, "tools/list": true, "tools/call": true}

// substituteID is the id the SDK sees in place of a numeric id it cannot
// carry exactly: it reads numeric ids through float64 into an int64, which
// mangles integers beyond 2^53 (and 1e30 or a 30-digit id entirely).
const substituteID = `"webacq-substitute-id"`

// message is one JSON-RPC message as the front checked it.
type message struct {
	// id is the client's id in canonical form (nil for a notification or a
	// response): a string re-encoded, a number exactly as sent.
	id json.RawMessage
	// sdkID is what the SDK is given as id: id itself, or substituteID.
	sdkID  json.RawMessage
	method string
	// params is an object, or nil when absent or null.
	params json.RawMessage
	// toolName is the name of a tools/call.
	toolName string
	// accepted: a notification or a response, answered 202 without the SDK.
	accepted bool
}

// substituted reports whether the SDK sees substituteID in place of the id.
func (m *message) substituted() bool { return !bytes.Equal(m.id, m.sdkID) }

// wire is the message handed to the SDK: exactly the members the front
// checked, so that the SDK's decoder (case-sensitive, first or last of
// duplicate keys) cannot read a different message than the one checked.
func (m *message) wire() []byte {
	method, _ := json.Marshal(m.method)
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(m.sdkID)
	b.WriteString(`,"method":`)
	b.Write(method)
	if m.params != nil {
		b.WriteString(`,"params":`)
		b.Write(m.params)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// rpcFault is a JSON-RPC error the front answers itself.
type rpcFault struct {
	status int
	code   int
	id     json.RawMessage // nil: null
	msg    string
}

func fault(status, code int, id json.RawMessage, format string, args ...any) *rpcFault {
	return &rpcFault{status: status, code: code, id: id, msg: fmt.Sprintf(format, args...)}
}

// parseMessage checks one POSTed body (the whole of it) against JSON-RPC
// 2.0 and MCP: one object, "jsonrpc": "2.0", a string or integer id, a
// string method, an object params. Errors about the message itself answer
// 400 with -32700 or -32600; errors about a well-formed request (unknown
// method, bad params) answer 200 with the request's id, as any JSON-RPC
// error response.
func parseMessage(body []byte) (*message, *rpcFault) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, fault(http.StatusBadRequest, codeParseError, nil, "parse error: the body is empty: send one JSON-RPC message")
	}
	if trimmed[0] == '[' {
		return nil, fault(http.StatusBadRequest, codeInvalidRequest, nil, "batches are not supported: send one JSON-RPC message per POST")
	}
	if !json.Valid(trimmed) {
		return nil, fault(http.StatusBadRequest, codeParseError, nil, "parse error: the body must be one JSON-RPC message")
	}
	members, err := objectMembers(trimmed)
	if err != nil {
		return nil, fault(http.StatusBadRequest, codeInvalidRequest, nil, "invalid request: %v", err)
	}
	m := &message{}
	if raw, ok := members["id"]; ok {
		if m.id, m.sdkID, err = checkID(raw); err != nil {
			return nil, fault(http.StatusBadRequest, codeInvalidRequest, nil, "invalid request: %v", err)
		}
	}
	var version string
	if raw, ok := members["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, fault(http.StatusBadRequest, codeInvalidRequest, m.id, `invalid request: "jsonrpc" must be "2.0"`)
	}
	rawMethod, hasMethod := members["method"]
	if !hasMethod {
		// A response (or error) the client sends to the server.
		_, result := members["result"]
		_, rpcErr := members["error"]
		if m.id == nil || result == rpcErr {
			return nil, fault(http.StatusBadRequest, codeInvalidRequest, m.id,
				`invalid request: a message without "method" is a response: it needs an id and one of "result" or "error"`)
		}
		m.accepted = true
		return m, nil
	}
	if json.Unmarshal(rawMethod, &m.method) != nil {
		return nil, fault(http.StatusBadRequest, codeInvalidRequest, m.id, `invalid request: "method" must be a string`)
	}
	if m.id == nil {
		m.accepted = true // a notification: none needs an answer here
		return m, nil
	}
	if !servedMethods[m.method] {
		return nil, fault(http.StatusOK, codeMethodNotFound, m.id, "method not found: %s", quoteShort(m.method))
	}
	if raw, ok := members["params"]; ok && string(raw) != "null" {
		if raw[0] != '{' {
			return nil, fault(http.StatusOK, codeInvalidParams, m.id, `invalid params: "params" must be an object`)
		}
		m.params = raw
	}
	if m.params == nil && (m.method == "initialize" || m.method == "tools/call") {
		return nil, fault(http.StatusOK, codeInvalidParams, m.id, "invalid params: %s needs params", m.method)
	}
	if f := checkParams(m); f != nil {
		return nil, f
	}
	if m.method == "tools/call" {
		params, err := objectMembers(m.params)
		if err != nil {
			return nil, fault(http.StatusOK, codeInvalidParams, m.id, "invalid params: %v", err)
		}
		if json.Unmarshal(params["name"], &m.toolName) != nil || m.toolName == "" {
			return nil, fault(http.StatusOK, codeInvalidParams, m.id, `invalid params: "name" must be a string naming a tool`)
		}
	}
	return m, nil
}

// checkParams decodes a request's params into the SDK's type for its
// method, so that a member of the wrong type is refused here with -32602
// and the member's name, not by the SDK in words that name its Go types.
func checkParams(m *message) *rpcFault {
	if m.params == nil {
		return nil
	}
	var v any
	switch m.method {
	case "initialize":
		v = new(sdk.InitializeParams)
	case "ping":
		v = new(sdk.PingParams)
	case "tools/list":
		v = new(sdk.ListToolsParams)
	case "tools/call":
		v = new(sdk.CallToolParamsRaw)
	default:
		return nil
	}
	err := json.Unmarshal(m.params, v)
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ) && typ.Field != "":
		return fault(http.StatusOK, codeInvalidParams, m.id, "invalid params: field %s must be %s, not %s",
			quoteShort(typ.Field), primitive.JSONType(typ.Type.Kind().String()), primitive.JSONValue(typ.Value))
	}
	return fault(http.StatusOK, codeInvalidParams, m.id, "invalid params")
}

// objectMembers splits a JSON object (valid JSON) into its members. Keys
// are compared exactly (the SDK's decoder is case-sensitive); a key that
// appears twice is refused, since decoders disagree on which one counts.
func objectMembers(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("a JSON-RPC message is a JSON object")
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errors.New("malformed object")
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("malformed object")
		}
		if _, dup := members[key]; dup {
			return nil, fmt.Errorf("member %s appears twice", quoteShort(key))
		}
		members[key] = v
	}
	return members, nil
}

// checkID accepts the ids MCP allows: a string or an integer (written in
// any JSON form whose value is whole: 7, 7.0, 1e30), never null. It returns
// the id to echo and the id to give the SDK.
func checkID(raw json.RawMessage) (id, sdkID json.RawMessage, err error) {
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, errors.New("malformed id")
		}
		id, _ = json.Marshal(s)
		return id, id, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !integral(string(raw)) {
			return nil, nil, errors.New("id must be a string or an integer, not a fraction")
		}
		id = append(json.RawMessage(nil), raw...)
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && strconv.FormatInt(n, 10) == string(raw) &&
			n <= 1<<53 && n >= -(1<<53) {
			return id, id, nil
		}
		return id, json.RawMessage(substituteID), nil
	case c == 'n':
		return nil, nil, errors.New("id must be a string or an integer, not null")
	}
	return nil, nil, errors.New("id must be a string or an integer")
}

// integral reports whether a JSON number (valid syntax) has a whole value,
// without converting it: 1e1000000 is whole and never allocated.
func integral(num string) bool {
	s := strings.TrimPrefix(num, "-")
	mantissa, exponent, _ := strings.Cut(strings.ToLower(s), "e")
	whole, fraction, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimRight(whole+fraction, "0")
	if strings.Trim(digits, "0") == "" {
		return true // zero
	}
	exp := 0
	if exponent != "" {
		e, err := strconv.Atoi(exponent)
		if err != nil { // beyond int: a huge power of ten either way
			return !strings.HasPrefix(exponent, "-")
		}
		exp = e
	}
	switch {
	case exp > 1<<32:
		return true
	case exp < -(1 << 32):
		return false
	}
	// The decimal point sits after len(whole)+exp of the digits; the value
	// is whole when no significant digit follows it.
	return len(digits) <= len(whole)+exp
}

// quoteShort quotes s for a message, cut to 100 bytes.
func quoteShort(s string) string {
	if len(s) > 100 {
		s = s[:100]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return strconv.Quote(s) + "…"
	}
	return strconv.Quote(s)
}

// writeFault answers a JSON-RPC error.
func writeFault(w http.ResponseWriter, f *rpcFault) {
	id := f.id
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(f.msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(f.status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, f.code, msg)
}

// rpcWriter stands between the SDK and the client. It turns the plain-text
// errors the SDK writes (http.Error) into JSON-RPC error objects, puts the
// client's id back in place of substituteID, and answers an error the SDK
// left without a JSON-RPC code as an internal error. JSON answers (which
// the SDK writes at once) are held until finish; event streams pass.
type rpcWriter struct {
	http.ResponseWriter
	id  json.RawMessage // the client's id (nil: null)
	log func(msg string)

	wroteHeader bool
	hold        bool // the body is held until finish
	status      int
	buf         bytes.Buffer
	// answeredError: the held answer was a JSON-RPC error (the call's row
	// records it as refused).
	answeredError bool
}

func (w *rpcWriter) WriteHeader(status int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader, w.status = true, status
	ct := w.Header().Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") && status != http.StatusAccepted && status != http.StatusNoContent {
		w.hold = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rpcWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.hold {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes server-sent events on as they come, unless the body is held.
func (w *rpcWriter) Flush() {
	if w.hold {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *rpcWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes what was held.
func (w *rpcWriter) finish() {
	if !w.hold {
		return
	}
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.answeredError = true
		w.Header().Del("X-Content-Type-Options")
		writeFault(w.ResponseWriter, plainTextFault(w.status, w.id, w.buf.String()))
		return
	}
	body := w.fixResponse(w.buf.Bytes())
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}

// fixResponse puts the client's id in place of substituteID and replaces
// an error without a JSON-RPC code (an SDK failure, in its own words) by
// "internal error". Any other body is returned as it is.
func (w *rpcWriter) fixResponse(body []byte) []byte {
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &resp) != nil || resp.ID == nil || (resp.Result == nil) == (resp.Error == nil) {
		return body
	}
	changed := false
	if string(resp.ID) == substituteID && w.id != nil && string(w.id) != substituteID {
		resp.ID, changed = w.id, true
	}
	if resp.Error != nil {
		w.answeredError = true
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(resp.Error, &e) != nil || e.Code == 0 || e.Code == codeInternal {
			if w.log != nil {
				w.log(e.Message)
			}
			resp.Error = json.RawMessage(fmt.Sprintf(`{"code":%d,"message":"internal error"}`, codeInternal))
			changed = true
		}
	}
	if !changed {
		return body
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(resp.ID)
	if resp.Error != nil {
		b.WriteString(`,"error":`)
		b.Write(resp.Error)
	} else {
		b.WriteString(`,"result":`)
		b.Write(resp.Result)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// plainTextFault is the JSON-RPC form of an error the SDK wrote as text.
// Its text describes the request; a 5xx says no more than "internal error".
func plainTextFault(status int, id json.RawMessage, text string) *rpcFault {
	if status < 400 {
		status = http.StatusInternalServerError
	}
	code := codeInvalidRequest
	switch {
	case status == http.StatusMethodNotAllowed:
		code = codeMethodNotAllowed
	case status >= 500:
		code, text = codeInternal, "internal error"
	}
	text, _, _ = strings.Cut(strings.TrimSpace(text), "\n")
	if len(text) > 200 {
		text = quoteShort(text[:200])
	}
	if text == "" {
		text = http.StatusText(status)
	}
	return fault(status, code, id, "%s", text)
}
