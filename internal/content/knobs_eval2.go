package content

import "os"

// Throw-away knobs of branch i20-eval2 (reverted before the branch ends).
var (
	knobFig   = os.Getenv("EVAL2_FIG") != ""
	knobPopup = os.Getenv("EVAL2_POPUP") != ""
)
