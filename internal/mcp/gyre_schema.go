package mcp

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"webacq/internal/primitive"
)

// gyreInputSchema is svc_gyre's input schema: the gyre body's, where a
// crawl needs url and a read of a crawl job needs job_id alone (DECISIONS,
// Async gyre), so either is required and url stays a string (null is
// refused, as REST refuses it).
func gyreInputSchema() *jsonschema.Schema {
	s := inputSchema[primitive.GyreRequest]()
	s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(p string) bool { return p == "url" })
	s.AnyOf = []*jsonschema.Schema{{Required: []string{"url"}}, {Required: []string{"job_id"}}}
	return s
}
