// Package alert sends monitor alerts over the channels besides the webhook
// (DECISIONS.md, Alert channels): a Slack incoming webhook, email through
// the operator's SMTP server, and SMS through a Twilio-compatible Messages
// API. It renders each channel's message from the webhook payload.
package alert

// Mailer sends email through the operator's SMTP server (WEBACQ_SMTP_URL,
// WEBACQ_SMTP_FROM). A nil Mailer means no email transport.
type Mailer struct {
	from string
}

// SMS sends text messages through a Twilio-compatible Messages API
// (WEBACQ_SMS_URL, WEBACQ_SMS_ACCOUNT, WEBACQ_SMS_TOKEN, WEBACQ_SMS_FROM).
// A nil SMS means no SMS transport.
type SMS struct {
	from string
}
