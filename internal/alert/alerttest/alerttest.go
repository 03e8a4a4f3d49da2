// Package alerttest runs real local peers of the alert transports for
// tests: an SMTP server (go-smtp), a Twilio-compatible Messages API and a
// Slack incoming webhook, each recording what it received.
package alerttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Gate holds a server's requests while it is shut, as a hung peer would
// (crash tests kill the sender meanwhile). The zero Gate is open.
type Gate struct {
	mu   sync.Mutex
	shut chan struct{}
	held int
}

// Shut makes the requests that come next wait until Open.
func (g *Gate) Shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut == nil {
		g.shut = make(chan struct{})
	}
}

// Open lets the waiting requests, and those that come next, through.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut != nil {
		close(g.shut)
		g.shut = nil
	}
}

// Held is how many requests are waiting.
func (g *Gate) Held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// wait waits while the gate is shut; false when gone ended first (the
// client went away).
func (g *Gate) wait(gone <-chan struct{}) bool {
	g.mu.Lock()
	shut := g.shut
	if shut == nil {
		g.mu.Unlock()
		return true
	}
	g.held++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.held--
		g.mu.Unlock()
	}()
	select {
	case <-shut:
		return true
	case <-gone:
		return false
	}
}

// Mail is one message the SMTP server accepted.
type Mail struct {
	From    string
	To      []string
	Subject string
	Text    string // the text/plain part
	HTML    string // the text/html part
	TLS     bool   // whether the session was encrypted
	Auth    string // the user that authenticated, "" for none
}

// SMTPServer is a real SMTP server on 127.0.0.1.
type SMTPServer struct {
	URL string // for WEBACQ_SMTP_URL
	// Gate holds each message at RCPT TO while shut.
	Gate

	mu   sync.Mutex
	mail []Mail
	// reject, when set, answers RCPT TO for an address with an error.
	reject func(to string) error
	user   string
	pass   string
}

// SMTPOptions configure the server: with TLS, STARTTLS is offered (and the
// URL requires it); with User, PLAIN authentication is required.
type SMTPOptions struct {
	TLS        *tls.Config
	User, Pass string
}

// NewSMTPServer starts an SMTP server for the test's lifetime.
func NewSMTPServer(t testing.TB, o SMTPOptions) *SMTPServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTPServer{user: o.User, pass: o.Pass}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.AllowInsecureAuth = o.TLS == nil
	srv.TLSConfig = o.TLS
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	userinfo := ""
	if o.User != "" {
		userinfo = o.User + ":" + o.Pass + "@"
	}
	s.URL = "smtp://" + userinfo + l.Addr().String()
	if o.TLS == nil {
		s.URL += "?tls=none"
	}
	return s
}

// Reject makes RCPT TO answer err for the addresses f picks.
func (s *SMTPServer) Reject(f func(to string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject = f
}

// Mail returns the messages accepted so far.
func (s *SMTPServer) Mail() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mail...)
}

type session struct {
	s    *SMTPServer
	conn *smtp.Conn
	m    Mail
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != ss.s.user || pass != ss.s.pass {
			return errors.New("invalid credentials")
		}
		ss.m.Auth = user
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.user != "" && ss.m.Auth == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	ss.m.From = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.wait(nil)
	ss.s.mu.Lock()
	reject := ss.s.reject
	ss.s.mu.Unlock()
	if reject != nil {
		if err := reject(to); err != nil {
			return err
		}
	}
	ss.m.To = append(ss.m.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	ss.m.Subject, _ = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	_, ss.m.TLS = ss.conn.TLSConnectionState()
	if err := parts(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, &ss.m); err != nil {
		return err
	}
	ss.s.mu.Lock()
	ss.s.mail = append(ss.s.mail, ss.m)
	ss.s.mu.Unlock()
	ss.m = Mail{Auth: ss.m.Auth}
	return nil
}

// parts reads the text and HTML parts of a (multipart) body.
func parts(contentType, encoding string, body io.Reader, m *Mail) error {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart() // decodes quoted-printable itself
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := parts(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, m); err != nil {
				return err
			}
		}
	}
	b, err := io.ReadAll(decode(encoding, body))
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		m.Text = string(b)
	case "text/html":
		m.HTML = string(b)
	}
	return nil
}

func (ss *session) Reset()        { ss.m = Mail{Auth: ss.m.Auth} }
func (ss *session) Logout() error { return nil }

// SMS is one message the Messages API accepted.
type SMS struct{ To, From, Body string }

// SMSServer is a Twilio-compatible Messages API on 127.0.0.1.
type SMSServer struct {
	URL, Account, Token string
	// Gate holds each request while shut.
	Gate

	mu  sync.Mutex
	sms []SMS
	// fail answers the next n requests with status.
	failN, failStatus int
}

// NewSMSServer starts the API for the test's lifetime.
func NewSMSServer(t testing.TB) *SMSServer {
	s := &SMSServer{Account: "AC0123456789abcdef", Token: "sms-token-for-tests"}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// FailNext answers the next n requests with status.
func (s *SMSServer) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failN, s.failStatus = n, status
}

// Messages returns the messages accepted so far.
func (s *SMSServer) Messages() []SMS {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SMS(nil), s.sms...)
}

func (s *SMSServer) serve(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if !ok || user != s.Account || pass != s.Token {
		http.Error(w, `{"code":20003,"message":"Authenticate"}`, http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+s.Account+"/Messages.json" {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !s.wait(r.Context().Done()) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failN > 0 {
		s.failN--
		w.WriteHeader(s.failStatus)
		return
	}
	m := SMS{To: r.PostForm.Get("To"), From: r.PostForm.Get("From"), Body: r.PostForm.Get("Body")}
	if m.To == "" || m.From == "" || m.Body == "" {
		http.Error(w, `{"code":21604,"message":"A 'To' phone number is required."}`, http.StatusBadRequest)
		return
	}
	s.sms = append(s.sms, m)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"sid": fmt.Sprintf("SM%032d", len(s.sms)), "status": "queued"})
}

// SlackServer is a Slack incoming webhook on 127.0.0.1: it takes
// {"text": …} and answers "ok".
type SlackServer struct {
	URL string // a path shaped like Slack's, secret part included
	// Gate holds each request while shut.
	Gate

	mu   sync.Mutex
	text []string
}

// NewSlackServer starts the webhook for the test's lifetime.
func NewSlackServer(t testing.TB) *SlackServer {
	s := &SlackServer{}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX"
	return s
}

// Texts returns the messages received so far.
func (s *SlackServer) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.text...)
}

func (s *SlackServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(s.URL, r.URL.Path) {
		http.Error(w, "no_service", http.StatusNotFound)
		return
	}
	var m struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Text == "" {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	if !s.wait(r.Context().Done()) {
		return
	}
	s.mu.Lock()
	s.text = append(s.text, m.Text)
	s.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

// TLS returns a server certificate for 127.0.0.1 and a client
// configuration that trusts it.
func TLS(t testing.TB) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// decode undoes a part's transfer encoding (multipart.Reader already
// undoes quoted-printable in parts; a single-part body may carry it).
func decode(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	}
	return r
}
