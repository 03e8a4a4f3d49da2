package alert

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Timeout bounds one attempt on a transport, like a webhook's.
const Timeout = 10 * time.Second

// maxAnswer bounds the answer kept in the attempt log.
const maxAnswer = 1 << 10

// Result is one attempt that reached the transport.
type Result struct {
	Status   int // HTTP status, or the SMTP reply code
	Latency  time.Duration
	Response string // the transport's answer, truncated
}

// Failure is an attempt that did not deliver. Temporary ones are retried.
type Failure struct {
	Class     string // error class for the attempt log: network, smtp_550, http_401…
	Temporary bool
	Result
	Err error
}

func (f *Failure) Error() string { return "alert: " + f.Class + ": " + f.Err.Error() }

func (f *Failure) Unwrap() error { return f.Err }

// Mailer sends alert email through the operator's SMTP server.
type Mailer struct {
	host       string
	port       int
	user, pass string
	mode       string // starttls (required), tls (implicit), none
	from       string
	// TLS, when set, replaces the default TLS settings (tests trust their
	// own certificate authority with it).
	TLS *tls.Config
}

// NewMailer reads WEBACQ_SMTP_URL and WEBACQ_SMTP_FROM:
// smtp://user:pass@host:587 requires STARTTLS; smtps://user:pass@host:465
// is TLS from the first byte; ?tls=none speaks plain SMTP (a relay on the
// same machine). Both empty: no email transport (nil, nil).
func NewMailer(rawURL, from string) (*Mailer, error) {
	if rawURL == "" && from == "" {
		return nil, nil
	}
	if rawURL == "" || from == "" {
		return nil, errors.New("alert: email needs both WEBACQ_SMTP_URL and WEBACQ_SMTP_FROM")
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil, errors.New("alert: WEBACQ_SMTP_URL must look like smtp://user:pass@host:587")
	}
	m := &Mailer{host: u.Hostname(), mode: "starttls"}
	switch u.Scheme {
	case "smtp":
		m.port = 587
	case "smtps":
		m.port, m.mode = 465, "tls"
	default:
		return nil, fmt.Errorf("alert: WEBACQ_SMTP_URL scheme %q: use smtp:// (STARTTLS) or smtps:// (TLS)", u.Scheme)
	}
	switch t := u.Query().Get("tls"); t {
	case "":
	case "none":
		m.mode = "none"
	default:
		return nil, fmt.Errorf("alert: WEBACQ_SMTP_URL tls=%q: the only option is tls=none", t)
	}
	if p := u.Port(); p != "" {
		if m.port, err = strconv.Atoi(p); err != nil || m.port <= 0 || m.port > 65535 {
			return nil, errors.New("alert: WEBACQ_SMTP_URL has an invalid port")
		}
	}
	if u.User != nil {
		m.user = u.User.Username()
		m.pass, _ = u.User.Password()
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("alert: WEBACQ_SMTP_FROM is not an email address: %w", err)
	}
	m.from = a.String()
	return m, nil
}

// SendEmail sends the alert of p to one address: a plain-text part and an
// HTML part.
func (m *Mailer) SendEmail(ctx context.Context, to string, p *Payload) (Result, error) {
	msg := gomail.NewMsg()
	if err := msg.From(m.from); err != nil {
		return Result{}, &Failure{Class: "bad_sender", Err: err}
	}
	if err := msg.To(to); err != nil {
		return Result{}, &Failure{Class: "bad_recipient", Err: err}
	}
	msg.Subject(p.Subject())
	msg.SetMessageID()
	msg.SetDate()
	msg.SetGenHeader(gomail.HeaderXMailer, "webacq")
	msg.SetBodyString(gomail.TypeTextPlain, p.Text())
	var html bytes.Buffer
	if err := emailHTML.Execute(&html, p.htmlView()); err != nil {
		return Result{}, &Failure{Class: "render", Err: err}
	}
	msg.AddAlternativeString(gomail.TypeTextHTML, html.String())

	opts := []gomail.Option{gomail.WithPort(m.port), gomail.WithTimeout(Timeout), gomail.WithHELO("webacq")}
	switch m.mode {
	case "tls":
		opts = append(opts, gomail.WithSSL())
	case "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if m.TLS != nil {
		opts = append(opts, gomail.WithTLSConfig(m.TLS))
	}
	if m.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(m.user),
			gomail.WithPassword(m.pass))
	}
	c, err := gomail.NewClient(m.host, opts...)
	if err != nil {
		return Result{}, &Failure{Class: "smtp_config", Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	start := time.Now()
	err = c.DialAndSendWithContext(ctx, msg)
	res := Result{Latency: time.Since(start)}
	if err == nil {
		res.Status = 250
		return res, nil
	}
	res.Response = clip(err.Error(), maxAnswer)
	var se *gomail.SendError
	if errors.As(err, &se) && se.ErrorCode() > 0 {
		res.Status = se.ErrorCode()
		// A 5xx reply refuses this message for good; a 4xx asks to come back.
		return res, &Failure{Class: "smtp_" + strconv.Itoa(res.Status), Temporary: res.Status < 500, Result: res, Err: err}
	}
	return res, &Failure{Class: "network", Temporary: true, Result: res, Err: err}
}

// htmlLine is one line of the HTML part, a link when it is one.
type htmlLine struct{ Text, Link string }

type htmlView struct {
	Subject, URL, Detected, Preview string
	Changes, Details                []htmlLine
}

func (p *Payload) htmlView() htmlView {
	v := htmlView{Subject: p.Subject(), URL: p.URL, Detected: p.DetectedAt.UTC().Format(time.RFC3339),
		Preview: clip(p.ContentPreview, 1000)}
	for _, l := range p.changes(10, 300) {
		v.Changes = append(v.Changes, htmlLine{Text: l})
	}
	for _, l := range p.details() {
		if link, ok := strings.CutPrefix(l, "Document: "); ok {
			v.Details = append(v.Details, htmlLine{Text: "Document", Link: link})
			continue
		}
		v.Details = append(v.Details, htmlLine{Text: l})
	}
	return v
}

// emailHTML escapes everything that came from a page (html/template).
var emailHTML = template.Must(template.New("email").Parse(`<!doctype html>
<html><body style="font-family:sans-serif;line-height:1.4">
<h2 style="font-size:18px">{{.Subject}}</h2>
<p><a href="{{.URL}}">{{.URL}}</a><br><small>Detected {{.Detected}}</small></p>
{{if .Changes}}<ul>{{range .Changes}}<li>{{.Text}}</li>{{end}}</ul>{{end}}
{{range .Details}}<p>{{if .Link}}<a href="{{.Link}}">{{.Link}}</a>{{else}}{{.Text}}{{end}}</p>{{end}}
{{if .Preview}}<blockquote style="color:#444;border-left:3px solid #ccc;padding-left:8px">{{.Preview}}</blockquote>{{end}}
</body></html>
`))

// SMS sends text messages through a Twilio-compatible Messages API.
type SMS struct {
	base, account, token, from string
	client                     *http.Client
}

// NewSMS reads WEBACQ_SMS_URL (the API's base, e.g. https://api.twilio.com),
// WEBACQ_SMS_ACCOUNT, WEBACQ_SMS_TOKEN and WEBACQ_SMS_FROM. All empty: no
// SMS transport (nil, nil). The operator chooses this server, so it is
// reached without the SSRF guard, like the language model's.
func NewSMS(base, account, token, from string) (*SMS, error) {
	if base == "" && account == "" && token == "" && from == "" {
		return nil, nil
	}
	if base == "" || account == "" || token == "" || from == "" {
		return nil, errors.New("alert: SMS needs WEBACQ_SMS_URL, WEBACQ_SMS_ACCOUNT, WEBACQ_SMS_TOKEN and WEBACQ_SMS_FROM")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("alert: WEBACQ_SMS_URL must be an absolute http(s) URL")
	}
	return &SMS{base: strings.TrimRight(base, "/"), account: account, token: token, from: from,
		client: &http.Client{Timeout: Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}, nil
}

// SendSMS sends p's one-line message to one number: a form POST to
// /2010-04-01/Accounts/{account}/Messages.json with basic auth. Only a 2xx
// counts; 429 and 5xx are temporary.
func (s *SMS) SendSMS(ctx context.Context, to string, p *Payload) (Result, error) {
	form := url.Values{"To": {to}, "From": {s.from}, "Body": {p.SMS()}}
	endpoint := s.base + "/2010-04-01/Accounts/" + url.PathEscape(s.account) + "/Messages.json"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Result{}, &Failure{Class: "sms_config", Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "webacq")
	req.SetBasicAuth(s.account, s.token)
	start := time.Now()
	resp, err := s.client.Do(req)
	res := Result{Latency: time.Since(start)}
	if err != nil {
		var ne net.Error
		class := "network"
		if errors.As(err, &ne) && ne.Timeout() {
			class = "timeout"
		}
		return res, &Failure{Class: class, Temporary: true, Result: res, Err: err}
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	res.Status, res.Response = resp.StatusCode, string(answer)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return res, nil
	}
	return res, &Failure{Class: "http_" + strconv.Itoa(resp.StatusCode),
		Temporary: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500, Result: res,
		Err: fmt.Errorf("the SMS API answered HTTP %d", resp.StatusCode)}
}
