package fetch

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// TestUTF8BeatsMetaCharset: a page whose bytes are valid UTF-8 is read as
// UTF-8 whatever its meta tag declares; a page really written in the
// declared charset, a BOM, pure ASCII in a 7-bit encoding and a
// Content-Type charset keep their usual meaning.
func TestUTF8BeatsMetaCharset(t *testing.T) {
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("中文页面")
	jis, _ := japanese.ISO2022JP.NewEncoder().String("日本語")
	cases := map[string]struct {
		ct, body      string
		want, charset string
	}{
		"/utf8-meta-latin1": {"text/html", `<meta charset="iso-8859-1"><p>café</p>`, "<p>café</p>", "utf-8"},
		"/utf8-meta-gb2312": {"text/html",
			`<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><p>中文页面</p>`, "中文页面", "utf-8"},
		"/gbk-meta":       {"text/html", `<meta charset="gb2312"><p>` + gbk + `</p>`, "中文页面", "gbk"},
		"/latin1-meta":    {"text/html", `<meta charset="iso-8859-1"><p>caf` + "\xe9</p>", "<p>café</p>", "windows-1252"},
		"/bom-meta":       {"text/html", "\xef\xbb\xbf" + `<meta charset="windows-1252"><p>café</p>`, "<p>café</p>", "utf-8"},
		"/iso2022jp-meta": {"text/html", `<meta charset="iso-2022-jp"><p>` + jis + `</p>`, "日本語", "iso-2022-jp"},
		// A declaration past the prescan's 1024 bytes (scripts an
		// archive injected at the top of <head>) still names the charset.
		"/gbk-late-meta": {"text/html", `<html><head><script src="/a.js" charset="utf-8"></script><script>` + strings.Repeat("var a = 1;", 150) + "</script>" +
			`<meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body><p>` + gbk + `</p>`,
			"中文页面", "gbk"},
		// Past the head, or past 64 KB, a meta is not the page's.
		"/late-meta-in-body": {"text/html", "<html><head><script>" + strings.Repeat("var a = 1;", 150) + "</script>" +
			`</head><body><p>caf` + "\xe9" + `</p><meta charset="gb2312"></body>`, "<p>café</p>", "windows-1252"},
		// The server's word still rules: browsers follow it too.
		"/utf8-header-latin1": {"text/html; charset=ISO-8859-1", "<p>café</p>", "<p>cafÃ©</p>", "windows-1252"},
	}
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		c := cases[r.URL.Path]
		w.Header().Set("Content-Type", c.ct)
		w.Write([]byte(c.body))
	})
	client := New(Config{AllowPrivate: true})
	for path, c := range cases {
		resp, err := client.Get(context.Background(), Request{URL: srv.URL + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !strings.Contains(string(resp.Body), c.want) {
			t.Errorf("%s: body = %q, want it to contain %q", path, resp.Body, c.want)
		}
		if resp.Charset != c.charset {
			t.Errorf("%s: charset = %q, want %q", path, resp.Charset, c.charset)
		}
		if strings.HasPrefix(string(resp.Body), "\xef\xbb\xbf") {
			t.Errorf("%s: BOM kept", path)
		}
	}
}
