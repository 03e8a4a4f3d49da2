package config

import (
	"strings"
	"testing"
)

func TestMemoryBudget(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want int64
	}{{"", 1 << 30}, {"1GiB", 1 << 30}, {"512MiB", 512 << 20}, {"2 GB", 2e9}, {"100000000", 1e8}, {"64MiB", 64 << 20}} {
		c, err := Load(env("WEBACQ_MEMORY_BUDGET", tt.v))
		if err != nil {
			t.Errorf("WEBACQ_MEMORY_BUDGET=%q: %v", tt.v, err)
			continue
		}
		if c.MemoryBudget != tt.want {
			t.Errorf("WEBACQ_MEMORY_BUDGET=%q: got %d, want %d", tt.v, c.MemoryBudget, tt.want)
		}
	}
	for _, v := range []string{"lots", "-1GiB", "1TiB", "63MiB", "9223372036854775807GiB", "1.5GiB"} {
		if _, err := Load(env("WEBACQ_MEMORY_BUDGET", v)); err == nil || !strings.Contains(err.Error(), "WEBACQ_MEMORY_BUDGET") {
			t.Errorf("WEBACQ_MEMORY_BUDGET=%q: got %v, want a config error naming it", v, err)
		}
	}
	c, err := Load(env("WEBACQ_CONVERT_WORKERS", "3", "WEBACQ_CONVERT_QUEUE", "10"))
	if err != nil || c.ConvertWorkers != 3 || c.ConvertQueue != 10 {
		t.Fatalf("convert settings: %+v %v", c, err)
	}
	if _, err := Load(env("WEBACQ_CONVERT_QUEUE", "-2")); err == nil {
		t.Fatal("a negative queue was accepted")
	}
}
