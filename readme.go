// Package webacq holds the project's README, which the service serves at
// /readme so that the page at / can link to it wherever the binary runs.
package webacq

import _ "embed"

// README is README.md as built into the binary.
//
//go:embed README.md
var README string
