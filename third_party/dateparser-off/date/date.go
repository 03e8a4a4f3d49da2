// Package date holds the result type of the stand-in dateparser.Parse.
package date

import "time"

// Date is a parsed date; the stand-in never fills it.
type Date struct {
	Time time.Time
}
