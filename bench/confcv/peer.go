package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// peerSwap answers "would a second extraction on the pages of low
// confidence help?" from two tables: the confidence table (rs) and the
// per-page scores that go run ./bench/content -corpus wcxb -dump DIR
// writes (DIR/wcxb-scores.tsv, one "F1 x P y R z" column per
// extractor). For each threshold it prints, per half, the pages under
// it, the mean F1 if each of them took the peer's text instead of ours
// (what a blind swap gives), and if each took the better of the two
// (the ceiling of any judge between them).
func peerSwap(rs []row, scores string) {
	f, err := os.Open(scores)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	hdr := strings.Split(sc.Text(), "\t")
	f1 := map[string][]float64{} // page → F1 of each extractor column
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		var v []float64
		for _, col := range c[3:] {
			fs := strings.Fields(col)
			x := 0.0
			if len(fs) >= 2 {
				x, _ = strconv.ParseFloat(fs[1], 64)
			}
			v = append(v, x)
		}
		f1[c[0]] = v
	}
	if len(hdr) < 5 {
		fmt.Fprintln(os.Stderr, "the scores hold no peer column: run bench/content with the peers")
		os.Exit(1)
	}
	fmt.Printf("| half | confidence < | pages | ours | %s", strings.Join(hdr[4:], " swap | "))
	fmt.Printf(" swap | %s better-of |\n", strings.Join(hdr[4:], " better-of | "))
	for _, half := range []string{"A", "B"} {
		for _, tau := range []float64{0.3, 0.4, 0.5, 0.6, 0.7, 1.01} {
			n, low := 0, 0
			ours := 0.0
			swap := make([]float64, len(hdr)-4)
			best := make([]float64, len(hdr)-4)
			for _, r := range rs {
				v, ok := f1[r.name]
				if r.half != half || !ok {
					continue
				}
				n++
				ours += v[0]
				in := r.conf < tau
				if in {
					low++
				}
				for k := range swap {
					if in {
						swap[k] += v[k+1]
						best[k] += max(v[k+1], v[0])
					} else {
						swap[k] += v[0]
						best[k] += v[0]
					}
				}
			}
			fmt.Printf("| %s | %.2f | %d | %.4f |", half, tau, low, ours/float64(n))
			for _, s := range swap {
				fmt.Printf(" %.4f |", s/float64(n))
			}
			for _, s := range best {
				fmt.Printf(" %.4f |", s/float64(n))
			}
			fmt.Println()
		}
	}
}
