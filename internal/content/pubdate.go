package content

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Publication dates. Pages write them in many forms: ISO 8601 with or
// without seconds, fractions and offsets, a space for the T, offsets
// without a colon, Unix seconds, RFC 1123, "Jan 17, 2025". Metadata's
// PublishedTime answers one form where the page's is unambiguous: RFC
// 3339 with the page's own offset when it gives a time and an offset
// ("2021-11-01T10:52:50+01:00"; fractions of a second dropped),
// "2015-04-08T12:46:00" for a time without an offset, "2013-09-29" for a
// day alone (and for a day written in words). A form that names a day
// only ambiguously ("10/05/2022": October or May) stays as written; a
// value that holds no date at all ("Mo-Su 08:00-20:00", a year before
// 1900) is not a publication date, and the next source is read.

var (
	isoDate = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?`)
	months  = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	// "Jan 17, 2025", "December 2, 2025", "Dec 19th 2025".
	monthFirst = regexp.MustCompile(`(?i)\b` + months + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	// "4 May 2021", "19th December, 2025".
	dayFirst = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+` + months + `\.?,?\s+(\d{4})\b`)
	// "13/11/2025", "11.11.2021", "02-12-2025".
	numericDate = regexp.MustCompile(`^(\d{1,2})([/.-])(\d{1,2})([/.-])(\d{4})\b`)
	// What keeps a value that is not read as a date: a year, or a short
	// numeric date ("01/07/16").
	likelyDate = regexp.MustCompile(`\b(?:19|20)\d{2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b`)
)

// maxDateBytes bounds what is read as a date: a longer value is text.
const maxDateBytes = 100

// pubDate returns the first of values that holds a publication date, in
// the form normDate gives it, or "".
func pubDate(values ...string) string {
	for _, v := range values {
		if d, ok := normDate(v); ok {
			return d
		}
	}
	return ""
}

// normDate reads v as a publication date: its normal form (see the
// comment at the top of this file), v itself trimmed when it holds a
// date of an ambiguous form, or false when it holds none.
func normDate(v string) (string, bool) {
	v = strings.Join(strings.Fields(v), " ")
	if v == "" || len(v) > maxDateBytes {
		return "", false
	}
	if d, ok := unixDate(v); ok {
		return d, true
	}
	if m := isoDate.FindStringSubmatch(v); m != nil {
		return isoForm(m)
	}
	for _, layout := range []string{time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 -0700", time.RFC850} {
		if t, err := time.Parse(layout, v); err == nil {
			if !plausibleYear(t.Year()) {
				return "", false
			}
			if layout == time.RFC1123 || layout == time.RFC850 {
				return t.Format("2006-01-02T15:04:05") + zoneOf(t), true
			}
			return t.Format(time.RFC3339), true
		}
	}
	if m := monthFirst.FindStringSubmatch(v); m != nil {
		return dayForm(m[3], monthNumber(m[1]), m[2])
	}
	if m := dayFirst.FindStringSubmatch(v); m != nil {
		return dayForm(m[3], monthNumber(m[2]), m[1])
	}
	if m := numericDate.FindStringSubmatch(v); m != nil && m[2] == m[4] {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[3])
		switch {
		case m[2] == "." || a > 12 || a == b: // dots are day first; 13/11 can only be
			return dayForm(m[5], b, m[1])
		case b > 12:
			return dayForm(m[5], a, m[3])
		}
		return v, true // 10/05/2022: as written
	}
	if likelyDate.MatchString(v) {
		return v, true
	}
	return "", false
}

// zoneOf gives the offset of a time parsed with a zone abbreviation
// ("GMT", "UTC": Z); other abbreviations name no offset Go knows, and
// the time is given without one.
func zoneOf(t time.Time) string {
	if name, _ := t.Zone(); name == "UTC" || name == "GMT" {
		return "Z"
	}
	return ""
}

// unixDate reads Unix seconds (9 or 10 digits) or milliseconds (13) as a
// time in UTC.
func unixDate(v string) (string, bool) {
	if n := len(v); n != 9 && n != 10 && n != 13 {
		return "", false
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil || sec < 0 {
		return "", false
	}
	if len(v) == 13 {
		sec /= 1000
	}
	t := time.Unix(sec, 0).UTC()
	if !plausibleYear(t.Year()) {
		return "", false
	}
	return t.Format(time.RFC3339), true
}

// isoForm writes a match of isoDate: year, month, day, then hour,
// minute, second and zone where given.
func isoForm(m []string) (string, bool) {
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[3])
	if !validDay(year, month, day) {
		return "", false
	}
	date := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	if m[4] == "" {
		return date, true
	}
	hour, _ := strconv.Atoi(m[4])
	minute, _ := strconv.Atoi(m[5])
	second, _ := strconv.Atoi(m[6]) // "" reads as 0
	if hour > 23 || minute > 59 || second > 59 {
		return date, true
	}
	out := date + "T" + twoDigits(hour) + ":" + twoDigits(minute) + ":" + twoDigits(second)
	switch zone := m[7]; {
	case zone == "":
	case zone == "Z" || zone == "UTC" || zone == "GMT":
		out += "Z"
	default:
		hh, mm := zone[1:3], zone[len(zone)-2:]
		h, _ := strconv.Atoi(hh)
		mi, _ := strconv.Atoi(mm)
		if h > 14 || mi > 59 {
			return date, true // not an offset: the day alone
		}
		out += zone[:1] + hh + ":" + mm
	}
	return out, true
}

// dayForm writes a day given in words or numbers as YYYY-MM-DD.
func dayForm(yearText string, month int, dayText string) (string, bool) {
	year, _ := strconv.Atoi(yearText)
	day, _ := strconv.Atoi(dayText)
	if !validDay(year, month, day) {
		return "", false
	}
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Format("2006-01-02"), true
}

// validDay tells whether year, month and day name a day of the calendar
// in a plausible year.
func validDay(year, month, day int) bool {
	if !plausibleYear(year) || month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// plausibleYear: a year before 1900 is a content system's empty date
// ("0001-01-01"), not a publication; one after 2100 is no better.
func plausibleYear(y int) bool { return y >= 1900 && y <= 2100 }

func monthNumber(name string) int {
	switch strings.ToLower(name)[:3] {
	case "jan":
		return 1
	case "feb":
		return 2
	case "mar":
		return 3
	case "apr":
		return 4
	case "may":
		return 5
	case "jun":
		return 6
	case "jul":
		return 7
	case "aug":
		return 8
	case "sep":
		return 9
	case "oct":
		return 10
	case "nov":
		return 11
	case "dec":
		return 12
	}
	return 0
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
