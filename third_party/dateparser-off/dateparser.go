// Package dateparser stands in for go-dateparser in webacq's build (see
// the replace directive in webacq's go.mod and third_party/README.md).
//
// webacq links go-dateparser only because go-trafilatura imports
// go-htmldate, whose extensive date search calls it. webacq runs
// trafilatura with its date extraction off (internal/content/extract.go,
// HtmlDateMode: Disabled), so nothing ever parses a date through it,
// yet every webacq process paid for its package initialisation: some
// 3,900 regular expressions compiled at start-up, 0.2-0.3 s of CPU and
// about 78 MB allocated before main runs. This module declares the few
// names go-htmldate refers to and parses nothing: Parse always fails,
// which go-htmldate treats as "no date found".
package dateparser

import (
	"errors"

	"github.com/markusmobius/go-dateparser/date"
)

// ErrDisabled is what Parse returns: webacq does not parse dates here.
var ErrDisabled = errors.New("dateparser: date parsing is not linked into webacq")

// ParserType names a kind of date parser.
type ParserType uint8

// The parser kinds go-htmldate names.
const (
	Timestamp ParserType = iota
	NegativeTimestamp
	RelativeTime
	CustomFormat
	AbsoluteTime
	NoSpacesTime
)

// PreferredDateSource says how an incomplete date would be filled in.
type PreferredDateSource uint8

// The date sources go-htmldate names.
const (
	CurrentPeriod PreferredDateSource = iota
	Past
	Future
)

// Configuration holds the settings go-htmldate passes to Parse.
type Configuration struct {
	PreferredDateSource PreferredDateSource
	StrictParsing       bool
}

// Parser is go-htmldate's handle on the date parser.
type Parser struct {
	ParserTypes []ParserType
}

// Parse finds no date: it always returns ErrDisabled.
func (p *Parser) Parse(cfg *Configuration, str string, formats ...string) (date.Date, error) {
	return date.Date{}, ErrDisabled
}
