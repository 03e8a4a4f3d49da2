package main

import (
	"fmt"

	"webacq/bench/internal/rankstat"
)

func univariate(hdr []string, rs []row) {
	for k, h := range hdr {
		for _, half := range []string{"A", "B"} {
			var x, f []float64
			for _, r := range rs {
				if r.half == half {
					x = append(x, r.x[k])
					f = append(f, r.f1)
				}
			}
			fmt.Printf("%-16s %s sp %+.3f auc %.3f   ", h, half, rankstat.Spearman(x, f), rankstat.AUCLow(x, f))
		}
		fmt.Println()
	}
}
