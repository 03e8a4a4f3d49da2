// Command pdfwords measures whether the text webacq reads from PDFs comes
// out as words: for each PDF of a folder it runs the fetch primitive's PDF
// entry point (content.PDF) and the pure-Go fallback reader, and, when
// poppler-utils is installed, plain pdftotext in three modes as a
// reference, and prints pages, words, the share of "words" longer than 25
// characters (words glued together where a space was lost), the share of
// plain words found in an English word list (split and glued words are
// not) and the time taken. See README.md.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"webacq/internal/content"
	"webacq/internal/pdftext"
)

// longWord is the length, in characters, past which a "word" counts as
// glued.
const longWord = 25

// method is one way of reading a PDF's text.
type method struct {
	name string
	read func(ctx context.Context, body []byte) (string, error)
}

// tally is what one method read from one or more files.
type tally struct {
	pages, words, long int
	plain, known       int // letter-only words, and those in the word list
	took               time.Duration
	failed             int
}

func (t *tally) add(u tally) {
	t.pages += u.pages
	t.words += u.words
	t.long += u.long
	t.plain += u.plain
	t.known += u.known
	t.took += u.took
	t.failed += u.failed
}

func (t tally) share() string {
	if t.words == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(t.long)/float64(t.words))
}

func (t tally) knownShare() string {
	if t.plain == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(t.known)/float64(t.plain))
}

func main() {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	dir := flag.String("dir", filepath.Join(cache, "webacq-pdfwords", "pdfs"), "folder of PDFs (fetch.sh fills the default)")
	dictFile := flag.String("dict", filepath.Join(cache, "webacq-pdfwords", "tree", "usr", "share", "dict", "american-english"), "English word list, one a line (fetch.sh unpacks the default; else /usr/share/dict/words)")
	show := flag.Int("show", 0, "print up to this many of the long words each method read from each file")
	only := flag.String("methods", "", "comma-separated methods to run (default: all available)")
	dump := flag.String("dump", "", "write each method's text of each file to this folder, to compare them")
	flag.Parse()

	files, err := pdfs(*dir)
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "pdfwords: no PDFs under %s (run bench/pdfwords/fetch.sh): %v\n", *dir, err)
		os.Exit(1)
	}
	dict := loadDict(*dictFile, "/usr/share/dict/words")
	methods := available(*only)
	if len(methods) == 0 {
		fmt.Fprintf(os.Stderr, "pdfwords: no method named in %q\n", *only)
		os.Exit(1)
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tmethod\tpages\twords\t>25 chars\tshare\tin word list\ttime\t")
	totals := make([]tally, len(methods))
	var samples []string
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pdfwords:", err)
			os.Exit(1)
		}
		pages := pageCount(f)
		for i, m := range methods {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			t0 := time.Now()
			text, err := m.read(ctx, body)
			took := time.Since(t0)
			cancel()
			u := tally{pages: pages, took: took}
			if err != nil {
				u.failed = 1
				fmt.Fprintf(os.Stderr, "pdfwords: %s: %s: %v\n", filepath.Base(f), m.name, err)
			}
			if *dump != "" {
				out := filepath.Join(*dump, name(f)+"."+strings.ReplaceAll(m.name, " ", "")+".txt")
				if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
					fmt.Fprintln(os.Stderr, "pdfwords:", err)
					os.Exit(1)
				}
			}
			var long []string
			u.words, long = words(text)
			u.long = len(long)
			u.plain, u.known = known(text, dict)
			totals[i].add(u)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", name(f), m.name, pages, u.words, u.long, u.share(), u.knownShare(), took.Round(time.Millisecond))
			if *show > 0 && len(long) > 0 {
				samples = append(samples, fmt.Sprintf("%s %s: %s", name(f), m.name, strings.Join(long[:min(*show, len(long))], "  ")))
			}
		}
	}
	for i, m := range methods {
		t := totals[i]
		label := fmt.Sprintf("ALL (%d files)", len(files))
		if t.failed > 0 {
			label += fmt.Sprintf(", %d failed", t.failed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", label, m.name, t.pages, t.words, t.long, t.share(), t.knownShare(), t.took.Round(time.Millisecond))
	}
	tw.Flush()
	for _, s := range samples {
		fmt.Println(s)
	}
}

// available returns the methods named in only (all when empty), leaving
// out the pdftotext references when poppler-utils is not installed.
func available(only string) []method {
	ms := []method{
		{"webacq", func(ctx context.Context, body []byte) (string, error) {
			doc, err := content.PDF(ctx, body)
			if err != nil {
				return "", err
			}
			return doc.Text, nil
		}},
		{"fallback", func(ctx context.Context, body []byte) (string, error) {
			doc, err := content.PDFWith(ctx, pdftext.NewFallback(pdftext.Limits{}), body)
			if err != nil {
				return "", err
			}
			return doc.Text, nil
		}},
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		for _, mode := range []string{"-layout", "", "-raw"} {
			ms = append(ms, method{strings.TrimSpace("pdftotext " + mode), pdftotext(mode)})
		}
	} else {
		fmt.Fprintln(os.Stderr, "pdfwords: pdftotext not found; the references are left out (run scripts/setup.sh)")
	}
	if only == "" {
		return ms
	}
	var kept []method
	for _, m := range ms {
		for _, n := range strings.Split(only, ",") {
			if strings.TrimSpace(n) == m.name {
				kept = append(kept, m)
			}
		}
	}
	return kept
}

// pdftotext returns a method running poppler's pdftotext with mode ("" for
// its default reading order).
func pdftotext(mode string) func(context.Context, []byte) (string, error) {
	return func(ctx context.Context, body []byte) (string, error) {
		args := []string{"-enc", "UTF-8"}
		if mode != "" {
			args = append(args, mode)
		}
		cmd := exec.CommandContext(ctx, "pdftotext", append(args, "-", "-")...)
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.Output()
		return string(out), err
	}
}

// words counts the whitespace-separated words of text and returns those
// longer than longWord characters.
func words(text string) (n int, long []string) {
	for _, w := range strings.Fields(text) {
		n++
		if utf8.RuneCountInString(w) > longWord {
			long = append(long, w)
		}
	}
	return n, long
}

// known counts the plain words of text (two or more ASCII letters once
// the punctuation around them is trimmed) and those of them found in dict,
// as they are or in lower case. A word split in two ("Refer-", "ence") or
// two glued together fall out of the list, so the share goes up as
// either is mended; a missing list counts nothing.
func known(text string, dict map[string]bool) (plain, found int) {
	if len(dict) == 0 {
		return 0, 0
	}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if len(w) < 2 || strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		plain++
		if dict[w] || dict[strings.ToLower(w)] {
			found++
		}
	}
	return plain, found
}

// loadDict reads the first word list of files that exists; nil if none.
func loadDict(files ...string) map[string]bool {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		dict := map[string]bool{}
		for _, w := range strings.Fields(string(b)) {
			dict[w] = true
		}
		return dict
	}
	fmt.Fprintln(os.Stderr, "pdfwords: no word list found (run bench/pdfwords/fetch.sh); the word-list share is left out")
	return nil
}

// pageCount asks pdfinfo for the number of pages; 0 when it cannot say.
func pageCount(file string) int {
	out, err := exec.Command("pdfinfo", file).Output()
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "Pages:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// pdfs lists the PDFs under dir, sorted.
func pdfs(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// name shortens a file name for the table.
func name(file string) string {
	n := strings.TrimSuffix(filepath.Base(file), ".pdf")
	if len(n) > 48 {
		n = n[:47] + "…"
	}
	return n
}
