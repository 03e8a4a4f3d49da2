package llm

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzSplitMarkdown: the chunks of any page's markdown (a stranger's text)
// are at most maxTokens each (estimated), never empty unless the page is,
// trimmed, and hold every non-space byte of the page, in order.
func FuzzSplitMarkdown(f *testing.F) {
	for _, seed := range []string{
		"", "small page", "# T\n\npara one\n\npara two\nline\n",
		strings.Repeat("x", 900), strings.Repeat("日本語のテキスト。", 40), strings.Repeat("a short line\n", 60),
		strings.Repeat("word ", 100) + "\n\n\n\n" + strings.Repeat("é", 300) + "\n \n\t\n" + strings.Repeat("|a|b|\n", 30),
		"\xff\xfe" + strings.Repeat("\x80", 200),
	} {
		f.Add(seed, uint16(minChunkTokens))
		f.Add(seed, uint16(3))
	}
	f.Fuzz(func(t *testing.T, md string, max16 uint16) {
		maxTokens := int(max16)
		if maxTokens < 2 || len(md) > 64<<10 {
			return // a non-ASCII rune alone is two tokens with its line break
		}
		chunks := splitMarkdown(md, maxTokens)
		if len(chunks) == 0 {
			t.Fatal("no chunk")
		}
		var kept strings.Builder
		for _, c := range chunks {
			if n := estimateTokens(c); n > maxTokens {
				t.Fatalf("a chunk of %d tokens, max %d: %q", n, maxTokens, c)
			}
			if c != strings.TrimSpace(c) || (c == "" && len(chunks) > 1) {
				t.Fatalf("chunk %q of %d", c, len(chunks))
			}
			kept.WriteString(strings.Join(strings.Fields(c), ""))
		}
		if want := strings.Join(strings.Fields(md), ""); kept.String() != want {
			t.Fatalf("chunks hold %q, want %q", kept.String(), want)
		}
	})
}

// FuzzParseJSON: parseJSON of any model answer (whose text a page can
// steer) is deterministic, answers a value or an error, never both; the
// value is one encoding/json builds (it marshals again), and an answer
// that is JSON as a whole is read as a whole.
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, ` [1,"x",null] `, "Here you are:\n```json\n{\"a\":[1,2]}\n```\nDone.", "```\n{\"a\":", "```json {\"a\":1}```",
		`The answer is {"a":"}{","b":[{"c":"\"]"}]} and more {"x":1}`, `{"a":[1,2`, "no json", "", "  \n",
		strings.Repeat("[", 200) + strings.Repeat("]", 200), `{"a":"\ud800\xff"}`, `[1e999]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		v, err := parseJSON(answer)
		v2, err2 := parseJSON(answer)
		if !reflect.DeepEqual(v, v2) || (err == nil) != (err2 == nil) {
			t.Fatalf("not deterministic: %v, %v then %v, %v", v, err, v2, err2)
		}
		if err != nil {
			if v != nil {
				t.Fatalf("error %v with a value %v", err, v)
			}
			if errors.Is(err, ErrTruncated) && !strings.ContainsAny(answer, "{[") {
				t.Fatalf("truncated without a bracket: %q", answer)
			}
			return
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatalf("value %#v does not marshal: %v", v, err)
		}
		var whole any
		if json.Unmarshal([]byte(strings.TrimSpace(answer)), &whole) == nil && !reflect.DeepEqual(whole, v) {
			t.Fatalf("a JSON answer read as %#v, want %#v", v, whole)
		}
	})
}
