package httpapi

import (
	"io"
	"net/http"

	"webacq"
)

// homePage is GET /: what this is and where to go (issue 22: a bare 404
// told a new user nothing).
const homePage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>webacq</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>webacq</h1>
<p>Web acquisition for AI agents: search, fetch a page as markdown, crawl, extract and map, over a REST API and MCP.</p>
<ul>
<li><a href="/console">Console</a>: keys, credits, usage, monitors</li>
<li><a href="/api/v1/openapi.json">API description</a> (OpenAPI 3.1); every call needs <code>Authorization: Bearer mc_…</code></li>
<li><a href="/readme">README</a>: quick start with curl, MCP, configuration</li>
<li>MCP endpoint: <code>/api/mcp</code> (streamable HTTP)</li>
</ul>
</body></html>
`

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, homePage)
}

func (s *Server) readme(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	io.WriteString(w, webacq.README)
}
