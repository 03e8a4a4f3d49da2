package monitor

import (
	"testing"
	"time"
)

// SetPreviewBackoff shortens the waits between a preview's attempts for
// one test; set it before the queue starts.
func SetPreviewBackoff(t testing.TB, waits []time.Duration) {
	old := previewBackoff
	previewBackoff = waits
	t.Cleanup(func() { previewBackoff = old })
}
