package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of SearchPages.
const (
	// SearchMaxLimit bounds the hits of one search.
	SearchMaxLimit = 100
	// searchMaxQueryBytes and searchMaxTerms bound the work a query asks for.
	searchMaxQueryBytes = 1000
	searchMaxTerms      = 32
	// snippetMaxChars bounds the markdown PostgreSQL's ts_headline reparses
	// for each hit; a match further in gets the page's opening as snippet.
	snippetMaxChars = 20000
)

// PageHit is a stored page that matches a search.
type PageHit struct {
	URL     string
	Title   string
	Snippet string
	// FetchedAt is when the copy that matched was acquired.
	FetchedAt time.Time
	// Rank is the relevance: higher is better. Its scale differs between
	// SQLite (BM25) and PostgreSQL (cover density), so compare ranks only
	// within one result list.
	Rank float64
}

// SearchPages finds the workspace's stored pages that match query, the most
// relevant first, at most limit (1 to SearchMaxLimit; 0 means 10) of them,
// among copies fetched at or after since (zero: any time). Each page appears
// once, as its best matching copy (highest Page.Quality, then the newest):
// the pages table keeps a copy per requested URL and variant, and copies
// with the same Page.Key (a redirect and its target, the loopback names of
// one address) are one page. A hit's URL is its copy's final URL. Copies
// whose status is 400 or more (gone, forbidden, not found) are left out.
//
// query is taken as a web search engine takes it, whatever it holds: words
// must all appear (in any order, case and, on SQLite, accents ignored),
// "quoted words" must appear as a phrase, -word must not appear, and "or"
// between words accepts either side. Other punctuation separates words, and
// there is no syntax error: a query with nothing to search for matches
// nothing. Matches in the title count more than matches in the text. Words
// are not stemmed on either engine.
func (s *Store) SearchPages(ctx context.Context, workspaceID, query string, limit int, since time.Time) ([]PageHit, error) {
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, SearchMaxLimit)
	query = cleanQuery(query)
	q := parseSearchQuery(query)
	if len(q) == 0 {
		return nil, nil
	}
	if s.dialect == SQLite {
		return s.searchSQLite(ctx, workspaceID, q.fts5(), limit, since)
	}
	return s.searchPostgres(ctx, workspaceID, query, limit, since)
}

// pageKeyExpr is a stored copy's page in search: its key, or for a copy
// saved before keys were kept, its final URL (or requested URL).
// hitURLExpr is the URL a hit shows.
const (
	pageKeyExpr = `COALESCE(NULLIF(p.page_key, ''), NULLIF(p.final_url, ''), p.url)`
	hitURLExpr  = `COALESCE(NULLIF(p.final_url, ''), p.url)`
)

// searchSQLite ranks in one query and makes snippets in one query per hit,
// so that only the hits returned pay for reading their text back.
func (s *Store) searchSQLite(ctx context.Context, workspaceID, match string, limit int, since time.Time) ([]PageHit, error) {
	// bm25 is lower for better matches; the title counts ten times the text.
	rows, err := s.rdb.QueryContext(ctx, `WITH m AS MATERIALIZED (
		SELECT rowid AS id, -bm25(pages_fts, 10.0, 1.0) AS rank FROM pages_fts WHERE pages_fts MATCH $1
	)
	SELECT id, rank FROM (
		SELECT p.id, p.fetched_at, m.rank,
			ROW_NUMBER() OVER (PARTITION BY `+pageKeyExpr+` ORDER BY p.quality DESC, p.fetched_at DESC, p.id DESC) AS n
		FROM m JOIN pages p ON p.id = m.id
		WHERE p.workspace_id = $2 AND p.fetched_at >= $3 AND p.status < 400
	) WHERE n = 1 ORDER BY rank DESC, fetched_at DESC, id DESC LIMIT $4`,
		match, workspaceID, since.UTC(), limit)
	if err != nil {
		return nil, fmt.Errorf("store: search pages: %w", err)
	}
	defer rows.Close()
	type ranked struct {
		id   int64
		rank float64
	}
	var top []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.id, &r.rank); err != nil {
			return nil, fmt.Errorf("store: search pages: %w", err)
		}
		top = append(top, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search pages: %w", err)
	}
	rows.Close()

	hits := make([]PageHit, 0, len(top))
	for _, r := range top {
		h := PageHit{Rank: r.rank}
		err := s.rdb.QueryRowContext(ctx, `SELECT `+hitURLExpr+`, p.title, p.fetched_at,
			snippet(pages_fts, 1, '', '', '…', 40)
			FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid
			WHERE pages_fts MATCH $1 AND pages_fts.rowid = $2`, match, r.id).
			Scan(&h.URL, &h.Title, &h.FetchedAt, &h.Snippet)
		if err != nil {
			// The page was pruned or replaced since the ranking: skip it.
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return nil, fmt.Errorf("store: search snippet: %w", err)
		}
		h.Snippet = tidySnippet(h.Snippet)
		hits = append(hits, h)
	}
	return hits, nil
}

// searchPostgres ranks with ts_rank_cd and makes headlines for the hits
// returned only, over a bounded prefix of their text.
func (s *Store) searchPostgres(ctx context.Context, workspaceID, query string, limit int, since time.Time) ([]PageHit, error) {
	rows, err := s.rdb.QueryContext(ctx, `WITH q AS (SELECT websearch_to_tsquery('simple', $2) AS q),
	best AS (
		SELECT DISTINCT ON (`+pageKeyExpr+`) p.id, `+hitURLExpr+` AS url, p.title, p.fetched_at,
			ts_rank_cd(p.search, q.q, 1) AS rank
		FROM pages p, q
		WHERE p.workspace_id = $1 AND p.search @@ q.q AND p.fetched_at >= $3 AND p.status < 400
		ORDER BY `+pageKeyExpr+`, p.quality DESC, p.fetched_at DESC, p.id DESC
	),
	top AS (SELECT * FROM best ORDER BY rank DESC, fetched_at DESC, id DESC LIMIT $4)
	SELECT top.url, top.title, top.fetched_at, top.rank,
		ts_headline('simple', left(p.markdown, $5), q.q,
			'StartSel="", StopSel="", MaxWords=40, MinWords=15, MaxFragments=2, FragmentDelimiter=" … "')
	FROM top JOIN pages p ON p.id = top.id, q
	ORDER BY top.rank DESC, top.fetched_at DESC, top.id DESC`,
		workspaceID, query, since.UTC(), limit, snippetMaxChars)
	if err != nil {
		return nil, fmt.Errorf("store: search pages: %w", err)
	}
	defer rows.Close()
	var hits []PageHit
	for rows.Next() {
		var h PageHit
		if err := rows.Scan(&h.URL, &h.Title, &h.FetchedAt, &h.Rank, &h.Snippet); err != nil {
			return nil, fmt.Errorf("store: search pages: %w", err)
		}
		h.Snippet = tidySnippet(h.Snippet)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search pages: %w", err)
	}
	return hits, nil
}

// cleanQuery makes any string safe to hand to the database: valid UTF-8, no
// NUL (PostgreSQL refuses it in text), bounded length.
func cleanQuery(q string) string {
	q = strings.ToValidUTF8(q, " ")
	q = strings.ReplaceAll(q, "\x00", " ")
	if len(q) > searchMaxQueryBytes {
		q = q[:searchMaxQueryBytes]
		for !utf8.ValidString(q) {
			q = q[:len(q)-1]
		}
	}
	return q
}

// searchTerm is a word or a quoted phrase of a query.
type searchTerm struct {
	text string
	not  bool
}

// searchQuery is a query in disjunctive form: any group may match, and a
// group matches when all its positive terms do and none of its negative ones.
type searchQuery [][]searchTerm

// parseSearchQuery reads a query the way PostgreSQL's websearch_to_tsquery
// does, so that both engines agree on what it means. Groups without a
// positive term are dropped: they cannot be said in FTS5.
func parseSearchQuery(q string) searchQuery {
	var out searchQuery
	var group []searchTerm
	flush := func() {
		for _, t := range group {
			if !t.not {
				out = append(out, group)
				break
			}
		}
		group = nil
	}
	terms := 0
	for i := 0; i < len(q) && terms < searchMaxTerms; {
		c := q[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		not := false
		if c == '-' && i+1 < len(q) && q[i+1] != ' ' {
			not = true
			i++
		}
		var text string
		quoted := i < len(q) && q[i] == '"'
		if quoted {
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				text, i = q[i+1:], len(q)
			} else {
				text, i = q[i+1:i+1+end], i+1+end+1
			}
		} else {
			end := strings.IndexAny(q[i:], " \t\n\r\"")
			if end < 0 {
				end = len(q) - i
			}
			text, i = q[i:i+end], i+end
		}
		if !quoted && !not && strings.EqualFold(text, "or") {
			if len(group) > 0 {
				flush()
			}
			continue
		}
		if !hasWord(text) {
			continue
		}
		group = append(group, searchTerm{text: text, not: not})
		terms++
	}
	flush()
	return out
}

// hasWord reports whether s holds a letter or digit, which the tokenizers
// of both engines index; a term without one would be an empty phrase.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0
}

// fts5 writes q in FTS5 query syntax. Every term is a quoted string, so no
// character of the user's reaches the FTS5 parser as an operator; FTS5 then
// tokenizes each string like the indexed text, making a multi-token string
// a phrase.
func (q searchQuery) fts5() string {
	var b strings.Builder
	for i, group := range q {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("((")
		first := true
		for _, t := range group {
			if t.not {
				continue
			}
			if !first {
				b.WriteString(" AND ")
			}
			first = false
			writeFTS5String(&b, t.text)
		}
		b.WriteString(")")
		for _, t := range group {
			if t.not {
				b.WriteString(" NOT ")
				writeFTS5String(&b, t.text)
			}
		}
		b.WriteString(")")
	}
	return b.String()
}

func writeFTS5String(b *strings.Builder, s string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// Markdown that reads badly in a snippet: links and images (their text
// stays), bold and code markers and heading marks.
var (
	snippetLink    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)?`)
	snippetMarkup  = regexp.MustCompile("\\*\\*|`+")
	snippetHeading = regexp.MustCompile(`(^|\s)#{1,6}\s`)
)

// tidySnippet puts a snippet on one line, without most markdown syntax.
func tidySnippet(s string) string {
	s = snippetLink.ReplaceAllString(s, "$1")
	s = snippetMarkup.ReplaceAllString(s, "")
	s = snippetHeading.ReplaceAllString(s, " ")
	return strings.Join(strings.Fields(s), " ")
}
