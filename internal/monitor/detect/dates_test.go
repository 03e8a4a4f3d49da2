package detect

import (
	"strings"
	"testing"
)

// TestDateInCodeSampleIsNoise: a documentation page shows markup as
// text; the date inside a <time> element of the sample is glued to the
// tags around it ("datetime=\"2010-06-03\">June" and "2010</time>"), and
// a new date there is noise like any other. A changed figure of the same
// sample is still a change.
func TestDateInCodeSampleIsNoise(t *testing.T) {
	page := func(iso, date, balance string) string {
		return `<html><body><nav><a href="/docs">Docs</a></nav><main><article>
<h1>The table element</h1>
<p>The table element represents tabular data: information presented in a two-dimensional table of rows and columns.</p>
<p>This example shows a table of members with the date each joined and their balance.</p>
<pre><code>&lt;table&gt; &lt;tr&gt; &lt;th&gt;Name&lt;/th&gt; &lt;th&gt;Member Since&lt;/th&gt; &lt;th&gt;Balance&lt;/th&gt; &lt;/tr&gt;
&lt;tr&gt; &lt;th&gt;Nguyen&lt;/th&gt; &lt;td&gt;&lt;time datetime="` + iso + `"&gt;` + date + `&lt;/time&gt;&lt;/td&gt; &lt;td&gt;` + balance + `&lt;/td&gt; &lt;/tr&gt; &lt;/table&gt;</code></pre>
<p>Each row holds one member; the header row names the columns.</p>
</article></main></body></html>`
	}
	first := anchor(t, page("2010-06-03", "June 3, 2010", "0.00"))
	if !strings.Contains(signalTexts(first.Fingerprint.Blocks), "June 3, 2010") {
		t.Fatalf("the code sample is not watched: %+v", first.Fingerprint.Blocks)
	}
	_, ch := check(t, page("2010-07-10", "July 10, 2010", "0.00"), first.Fingerprint)
	if ch.Changed {
		t.Errorf("a new date in a code sample counted as a change: %s", signalText(ch.Signals))
	}
	_, ch = check(t, page("2010-06-03", "June 3, 2010", "7.50"), first.Fingerprint)
	if !ch.Material {
		t.Errorf("a changed figure in a code sample was not a material change: %+v", ch)
	}
}

// TestDateRangeIsNoise: events and conferences are dated by a range of
// days ("23-26 March 2026", "March 23–26, 2026"); the dates of the next
// edition are noise, a changed city is not.
func TestDateRangeIsNoise(t *testing.T) {
	page := func(a, b, city string) string {
		return `<html><body><main><article>
<h1>Technology conferences worth the trip this year</h1>
<p>We rounded up the conferences where engineering teams meet, with the dates of their next edition.</p>
<h2>Machine learning summit</h2>
<p>` + city + `, U.S.A.: ` + a + `</p>
<p>Three days of talks on training and serving models, with workshops on the last day.</p>
<h2>Robotics week</h2>
<p>Munich, Germany: ` + b + `</p>
<p>Hands-on demonstrations of industrial robots and a fair of suppliers.</p>
</article></main></body></html>`
	}
	first := anchor(t, page("23-26 March 2026", "March 23–26, 2026", "San Francisco"))
	_, ch := check(t, page("2-5 May 2026", "May 4–7, 2026", "San Francisco"), first.Fingerprint)
	if ch.Changed {
		t.Errorf("the next edition's dates counted as a change: %s", signalText(ch.Signals))
	}
	_, ch = check(t, page("23-26 March 2026", "March 23–26, 2026", "Boston"), first.Fingerprint)
	if !ch.Material {
		t.Errorf("a new city was not a material change: %+v", ch)
	}
}

func signalTexts(bs []Block) string {
	var b strings.Builder
	for _, x := range bs {
		b.WriteString(x.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
