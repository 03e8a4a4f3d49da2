package main

import (
	"strings"

	md "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/marker"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// This is the converter that internal/content used before markdown.go,
// set up as it was (commit ccd62d8, internal/content/extract.go).

var converter = newConverter()

func reference(n *html.Node) string {
	out, err := converter.ConvertNode(n)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func newConverter() *md.Converter {
	c := md.NewConverter(md.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(
			commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip),
			commonmark.WithLinkEmptyHrefBehavior(commonmark.LinkBehaviorSkip),
		),
		table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
		strikethrough.NewStrikethroughPlugin(),
	))
	for _, tag := range []string{"template", "svg", "button", "select", "form", "dialog", "noembed", "noframes"} {
		c.Register.TagType(tag, md.TagTypeRemove, md.PriorityStandard)
	}
	c.Register.RendererFor("td", md.TagTypeInline, renderCell, md.PriorityStandard)
	c.Register.RendererFor("th", md.TagTypeInline, renderCell, md.PriorityStandard)
	c.Register.TextTransformer(angleBrackets, md.PriorityStandard+10)
	c.Register.UnEscaper(unescapeAngle, md.PriorityStandard)
	return c
}

func renderCell(ctx md.Context, w md.Writer, n *html.Node) md.RenderStatus {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode && (p.Data == "td" || p.Data == "th") {
			w.WriteString(" ")
			break
		}
	}
	ctx.RenderChildNodes(ctx, w, n)
	return md.RenderSuccess
}

var angleEntities = strings.NewReplacer(
	"&lt;", string(marker.BytesMarkerEscaping)+"<",
	"&gt;", string(marker.BytesMarkerEscaping)+">",
)

var escapeMark = marker.BytesMarkerEscaping[0]

func angleBrackets(_ md.Context, s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return angleEntities.Replace(s)
}

func unescapeAngle(chars []byte, i int) int {
	if chars[i] != '<' {
		return -1
	}
	j := i + 1
	for j < len(chars) && chars[j] == escapeMark {
		j++
	}
	if j == len(chars) {
		return -1
	}
	switch c := chars[j]; {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '/', c == '!', c == '?':
		return 1
	}
	for ; j < len(chars); j++ {
		c := chars[j]
		switch {
		case c == '@':
			return 1
		case c == escapeMark, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0:
		default:
			return -1
		}
	}
	return -1
}
