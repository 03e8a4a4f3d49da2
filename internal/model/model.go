package model

import "time"

// Workspace owns keys, a credit pool and logs.
type Workspace struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Credits    int64     `json:"credits"`
	Monitoring bool      `json:"monitoring"`
	CreatedAt  time.Time `json:"created_at"`
	// RPM and Concurrent are the workspace's request limits (an
	// operator's setting, not part of any answer).
	RPM        int `json:"-"`
	Concurrent int `json:"-"`
}

// APIKey is a workspace key as stored: never the plaintext.
type APIKey struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspace_id"`
	Prefix      string     `json:"prefix"`
	Name        string     `json:"name"`
	CreatedAt   time.Time  `json:"created_at"`
	LastUsedAt  *time.Time `json:"last_used_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
}

// Principal is who an authenticated request acts for.
type Principal struct {
	KeyID         string
	KeyPrefix     string
	KeyLastUsedAt *time.Time
	WorkspaceID   string
	WorkspaceName string
	Monitoring    bool
	// RPM is the workspace's requests per minute in each limited class,
	// Concurrent its crawls and extracts at once (DECISIONS, Rate limits).
	RPM, Concurrent int
}

// Tiers of a billed call.
const (
	TierNone    = "none"
	TierHTTP    = "http"
	TierBrowser = "browser"
)

// Channels through which a call arrived.
const (
	ViaHTTP = "http"
	ViaMCP  = "mcp"
)

// Usage is one row of the credit ledger.
type Usage struct {
	ID          int64     `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	KeyPrefix   string    `json:"key_prefix"`
	Endpoint    string    `json:"endpoint"`
	Credits     int64     `json:"credits"`
	Tier        string    `json:"tier"`
	Status      int       `json:"status"`
	DurationMS  int64     `json:"duration_ms"`
	RequestID   string    `json:"request_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// Activity is one row of the audit trail.
type Activity struct {
	ID          int64     `json:"id"`
	WorkspaceID string    `json:"workspace_id"`
	KeyPrefix   string    `json:"key_prefix"`
	Endpoint    string    `json:"endpoint"`
	Via         string    `json:"via"`
	Method      string    `json:"method"`
	Target      string    `json:"target"`
	Status      int       `json:"status"`
	ErrorCode   string    `json:"error_code"`
	Credits     int64     `json:"credits"`
	RequestID   string    `json:"request_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// LogFilter selects usage or activity rows, newest first.
type LogFilter struct {
	KeyPrefix string
	Endpoint  string
	Since     time.Time
	Before    time.Time
	// BeforeID, with Before, continues a page: rows at Before with a
	// smaller id come next (rows written in one millisecond share a time).
	BeforeID int64
	Limit    int
}

// CreditSummary answers GET /api/v1/credits.
type CreditSummary struct {
	Balance  int64 `json:"balance"`
	Spent24h int64 `json:"spent_24h"`
	Spent30d int64 `json:"spent_30d"`
}
