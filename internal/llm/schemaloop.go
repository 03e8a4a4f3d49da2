package llm

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// maxSchemaDepth bounds how deep subschemas nest. The resolver's time
// grows with the square of the depth (1,700 levels, what 64 KB can hold,
// took 5 s of CPU); an extraction schema nests a few levels.
const maxSchemaDepth = 64

// Keywords by how validation applies their subschemas: to the same value
// (a loop through them never ends) or to a part of it (each step goes one
// level into a finite value). $defs and definitions apply to nothing.
var (
	inPlaceOne  = []string{"not", "if", "then", "else"}
	inPlaceList = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMap  = []string{"dependentSchemas", "dependencies"}
	partOne     = []string{"additionalProperties", "contains", "propertyNames", "unevaluatedItems",
		"unevaluatedProperties", "additionalItems", "items"}
	partList = []string{"prefixItems", "items"}
	partMap  = []string{"properties", "patternProperties", "$defs", "definitions"}
)

// schemaGraph is a schema's subschemas by JSON pointer, with the edges
// validation follows without descending into the value.
type schemaGraph struct {
	nodes   map[string]bool
	edges   map[string][]string
	anchors map[string][]string // resource pointer + "#" + name: subschemas
	refs    []schemaRef
	depth   int // the most a walk may nest
}

type schemaRef struct {
	from, resource, ref string
	dynamic             bool
}

// checkLoops refuses a schema nested deeper than depth levels, one with a
// reference that is not local, and one in which a subschema reaches
// itself through references and the keywords applied to the same value
// (allOf, anyOf, oneOf, not, if, then, else, dependentSchemas): the
// validator would recurse on it until the stack overflows, which ends
// the process, whatever the value.
func checkLoops(root any, depth int) error {
	g := &schemaGraph{nodes: map[string]bool{}, edges: map[string][]string{}, anchors: map[string][]string{}, depth: depth}
	if err := g.walk(root, "", "", 0); err != nil {
		return err
	}
	for _, r := range g.refs {
		targets, err := g.resolve(r)
		if err != nil {
			return err
		}
		g.edges[r.from] = append(g.edges[r.from], targets...)
	}
	// Depth-first search for a cycle, iteratively: a schema of 64 KB
	// holds thousands of subschemas.
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	keys := make([]string, 0, len(g.nodes))
	for k := range g.nodes {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same schema names the same loop
	type frame struct {
		node string
		next int
	}
	for _, start := range keys {
		if state[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = open
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(g.edges[f.node]) {
				state[f.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			to := g.edges[f.node][f.next]
			f.next++
			switch state[to] {
			case open:
				return fmt.Errorf("the subschema at %q refers back to itself without going into a property or an item: "+
					"validating any value would never end", "#"+to)
			case unseen:
				state[to] = open
				stack = append(stack, frame{to, 0})
			}
		}
	}
	return nil
}

// walk records the subschemas of v, at pointer ptr in the resource whose
// root is at pointer res.
func (g *schemaGraph) walk(v any, ptr, res string, depth int) error {
	s, ok := v.(map[string]any)
	if !ok {
		return nil // true, false, or a fault the resolver reports
	}
	if depth > g.depth {
		return fmt.Errorf("subschemas nest deeper than %d levels", g.depth)
	}
	if id, ok := s["$id"].(string); ok && ptr != "" {
		if name, anchor := strings.CutPrefix(id, "#"); anchor {
			g.anchors[res+"#"+name] = append(g.anchors[res+"#"+name], ptr) // draft-07's plain-name $id
		} else if id != "" {
			res = ptr // a resource of its own: its "#/..." start here
		}
	}
	g.nodes[ptr] = true
	for _, k := range []string{"$anchor", "$dynamicAnchor"} {
		if name, ok := s[k].(string); ok {
			g.anchors[res+"#"+name] = append(g.anchors[res+"#"+name], ptr)
		}
	}
	for _, k := range []string{"$ref", "$dynamicRef"} {
		if ref, ok := s[k].(string); ok {
			g.refs = append(g.refs, schemaRef{from: ptr, resource: res, ref: ref, dynamic: k == "$dynamicRef"})
		}
	}
	child := func(sub any, p string, inPlace bool) error {
		if _, ok := sub.(map[string]any); inPlace && ok {
			g.edges[ptr] = append(g.edges[ptr], p)
		}
		return g.walk(sub, p, res, depth+1)
	}
	for _, group := range []struct {
		keys    []string
		inPlace bool
	}{{inPlaceOne, true}, {partOne, false}} {
		for _, k := range group.keys {
			if err := child(s[k], ptr+"/"+escapeToken(k), group.inPlace); err != nil {
				return err
			}
		}
	}
	for _, group := range []struct {
		keys    []string
		inPlace bool
	}{{inPlaceList, true}, {partList, false}} {
		for _, k := range group.keys {
			l, _ := s[k].([]any)
			for i, sub := range l {
				if err := child(sub, ptr+"/"+escapeToken(k)+"/"+strconv.Itoa(i), group.inPlace); err != nil {
					return err
				}
			}
		}
	}
	for _, group := range []struct {
		keys    []string
		inPlace bool
	}{{inPlaceMap, true}, {partMap, false}} {
		for _, k := range group.keys {
			m, _ := s[k].(map[string]any)
			names := make([]string, 0, len(m))
			for name := range m {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := child(m[name], ptr+"/"+escapeToken(k)+"/"+escapeToken(name), group.inPlace); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolve names the subschemas a reference may lead to. Only references
// within the schema are allowed: a JSON pointer ("#", "#/$defs/a") or an
// anchor ("#a").
func (g *schemaGraph) resolve(r schemaRef) ([]string, error) {
	frag, ok := strings.CutPrefix(r.ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not local: refer to a part of the schema, such as #/$defs/name", r.ref)
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %q is not a valid reference", r.ref)
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		if g.nodes[r.resource+frag] {
			return []string{r.resource + frag}, nil
		}
		return nil, nil // not a subschema: the resolver judges it
	}
	if !r.dynamic {
		return g.anchors[r.resource+"#"+frag], nil
	}
	// A dynamic reference may land on the anchor of that name in any
	// resource.
	var all []string
	for k, ptrs := range g.anchors {
		if strings.HasSuffix(k, "#"+frag) {
			all = append(all, ptrs...)
		}
	}
	sort.Strings(all)
	return all, nil
}

// escapeToken writes a key as a JSON pointer token.
func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
