package pdftext

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// maxFontHead bounds the bytes of an embedded Type 1 program read for its
// encoding, which sits in the clear text before the encrypted part.
const maxFontHead = 64 << 10

// builtinEncoding reads the encoding built into the embedded Type 1
// program of a simple font that names no encoding and has no ToUnicode
// map, which is how TeX has long written its fonts: without it the
// library falls back on PDFDocEncoding, which reads OT1's "fi" ligature
// as U+FFFD ("�le" for "file") and math italic's period as a colon.
// It returns nil when the font has no such program or no usable entry.
func (w *walker) builtinEncoding(fv pdf.Value) pdf.TextEncoding {
	if fv.Key("Encoding").Kind() != pdf.Null || fv.Key("ToUnicode").Kind() != pdf.Null {
		return nil
	}
	rd, ok := openStream(fv.Key("FontDescriptor").Key("FontFile"))
	if !ok {
		return nil
	}
	head, err := io.ReadAll(io.LimitReader(&countingReader{w: w, r: rd}, maxFontHead))
	if err != nil {
		return nil
	}
	if i := bytes.Index(head, []byte("eexec")); i >= 0 {
		head = head[:i]
	}
	var enc codeTable
	n := 0
	for _, m := range type1Dup.FindAllSubmatch(head, -1) {
		code, err := strconv.Atoi(string(m[1]))
		if err != nil || code > 255 {
			continue
		}
		if r := glyphRunes(string(m[2])); r != "" {
			enc[code] = r
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return &enc
}

// type1Dup matches an entry of a Type 1 program's encoding array.
var type1Dup = regexp.MustCompile(`dup\s+(\d{1,3})\s*/([^\s/\[\]{}()<>%]+)\s+put`)

// codeTable decodes one-byte codes by a table; codes it lacks pass
// through as the Latin-1 character of the byte.
type codeTable [256]string

func (t *codeTable) Decode(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if s := t[raw[i]]; s != "" {
			b.WriteString(s)
		} else {
			b.WriteRune(rune(raw[i]))
		}
	}
	return b.String()
}

// glyphRunes is the text of a glyph name after the Adobe Glyph List's
// rules: a suffix after a period is dropped, components joined by "_"
// are read one by one, and each is a name of the list below, "uniXXXX",
// "uXXXX" to "uXXXXXX", a single letter, or a letter and an accent
// ("aacute"). It is "" for a name it does not know.
func glyphRunes(name string) string {
	name, _, _ = strings.Cut(name, ".")
	if name == "" {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		s := glyphRune(part)
		if s == "" {
			return ""
		}
		b.WriteString(s)
	}
	return b.String()
}

func glyphRune(name string) string {
	if s, ok := glyphNames[name]; ok {
		return s
	}
	if len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return name
	}
	if hex, ok := strings.CutPrefix(name, "uni"); ok && len(hex) == 4 {
		return hexRune(hex)
	}
	if hex, ok := strings.CutPrefix(name, "u"); ok && len(hex) >= 4 && len(hex) <= 6 {
		return hexRune(hex)
	}
	for accent, mark := range accents {
		if base, ok := strings.CutSuffix(name, accent); ok && len(base) == 1 {
			if s := norm.NFC.String(base + mark); utf8.RuneCountInString(s) == 1 {
				return s
			}
		}
	}
	return ""
}

func hexRune(hex string) string {
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return ""
	}
	return string(rune(v))
}

// accents are the glyph-name suffixes of accented letters and their
// combining marks.
var accents = map[string]string{
	"grave": "\u0300", "acute": "\u0301", "circumflex": "\u0302", "tilde": "\u0303",
	"macron": "\u0304", "breve": "\u0306", "dotaccent": "\u0307", "dieresis": "\u0308",
	"ring": "\u030a", "hungarumlaut": "\u030b", "caron": "\u030c", "cedilla": "\u0327",
	"ogonek": "\u0328",
}

// glyphNames are the glyph names of text and TeX's fonts (OT1, T1, OML,
// OMS, OMX and the standard Latin sets) that are not a single letter or
// a letter with an accent.
var glyphNames = map[string]string{
	// ASCII
	"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$",
	"percent": "%", "ampersand": "&", "quotesingle": "'", "quoteright": "\u2019",
	"parenleft": "(", "parenright": ")", "asterisk": "*", "plus": "+", "comma": ",",
	"hyphen": "-", "period": ".", "slash": "/", "zero": "0", "one": "1", "two": "2",
	"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "colon": ":", "semicolon": ";", "less": "<", "equal": "=",
	"greater": ">", "question": "?", "at": "@", "bracketleft": "[", "backslash": "\\",
	"bracketright": "]", "asciicircum": "^", "underscore": "_", "quoteleft": "\u2018",
	"grave": "`", "braceleft": "{", "bar": "|", "braceright": "}", "asciitilde": "~",
	// Punctuation and symbols of text fonts
	"exclamdown": "¡", "questiondown": "¿", "cent": "¢", "sterling": "£", "yen": "¥",
	"Euro": "€", "florin": "ƒ", "section": "§", "paragraph": "¶", "copyright": "©",
	"registered": "®", "trademark": "™", "degree": "°", "bullet": "•",
	"periodcentered": "·", "ellipsis": "…", "endash": "–", "emdash": "—",
	"quotedblleft": "\u201c", "quotedblright": "\u201d", "quotesinglbase": "\u201a",
	"quotedblbase": "\u201e", "guillemotleft": "«", "guillemotright": "»",
	"guilsinglleft": "‹", "guilsinglright": "›", "dagger": "†", "daggerdbl": "‡",
	"perthousand": "‰", "fraction": "⁄", "visiblespace": "␣", "compwordmark": "",
	"ordfeminine": "ª", "ordmasculine": "º", "brokenbar": "¦", "currency": "¤",
	// Accents standing alone
	"acute": "´", "circumflex": "ˆ", "tilde": "˜", "macron": "¯", "breve": "˘",
	"dotaccent": "˙", "dieresis": "¨", "ring": "˚", "cedilla": "¸",
	"hungarumlaut": "˝", "ogonek": "˛", "caron": "ˇ",
	// Letters
	"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl",
	"dotlessi": "ı", "dotlessj": "ȷ", "germandbls": "ß", "ae": "æ", "AE": "Æ",
	"oe": "œ", "OE": "Œ", "oslash": "ø", "Oslash": "Ø", "lslash": "ł", "Lslash": "Ł",
	"eth": "ð", "Eth": "Ð", "thorn": "þ", "Thorn": "Þ", "dcroat": "đ", "Dcroat": "Đ",
	"eng": "ŋ", "Eng": "Ŋ", "ij": "ĳ", "IJ": "Ĳ",
	// Greek
	"Alpha": "Α", "Beta": "Β", "Gamma": "Γ", "Delta": "Δ", "Epsilon": "Ε", "Zeta": "Ζ",
	"Eta": "Η", "Theta": "Θ", "Iota": "Ι", "Kappa": "Κ", "Lambda": "Λ", "Mu": "Μ",
	"Nu": "Ν", "Xi": "Ξ", "Omicron": "Ο", "Pi": "Π", "Rho": "Ρ", "Sigma": "Σ",
	"Tau": "Τ", "Upsilon": "Υ", "Upsilon1": "ϒ", "Phi": "Φ", "Chi": "Χ", "Psi": "Ψ",
	"Omega": "Ω", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ",
	"epsilon": "ϵ", "epsilon1": "ε", "zeta": "ζ", "eta": "η", "theta": "θ",
	"theta1": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
	"xi": "ξ", "omicron": "ο", "pi": "π", "pi1": "ϖ", "rho": "ρ", "rho1": "ϱ",
	"sigma": "σ", "sigma1": "ς", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "phi1": "φ",
	"chi": "χ", "psi": "ψ", "omega": "ω", "omega1": "ϖ",
	// Mathematics
	"minus": "−", "multiply": "×", "divide": "÷", "plusminus": "±", "minusplus": "∓",
	"asteriskmath": "∗", "dotmath": "⋅", "diamondmath": "⋄", "circleplus": "⊕",
	"circleminus": "⊖", "circlemultiply": "⊗", "circledivide": "⊘", "circledot": "⊙",
	"openbullet": "◦", "bullet1": "•", "equivalence": "≡", "reflexsubset": "⊆",
	"reflexsuperset": "⊇", "lessequal": "≤", "greaterequal": "≥", "precedesequal": "⪯",
	"followsequal": "⪰", "similar": "∼", "approxequal": "≈", "propersubset": "⊂",
	"propersuperset": "⊃", "lessmuch": "≪", "greatermuch": "≫", "precedes": "≺",
	"follows": "≻", "arrowleft": "←", "arrowright": "→", "arrowup": "↑",
	"arrowdown": "↓", "arrowboth": "↔", "arrownortheast": "↗", "arrowsoutheast": "↘",
	"similarequal": "≃", "arrowdblleft": "⇐", "arrowdblright": "⇒", "arrowdblup": "⇑",
	"arrowdbldown": "⇓", "arrowdblboth": "⇔", "arrownorthwest": "↖",
	"arrowsouthwest": "↙", "proportional": "∝", "prime": "′", "minute": "′",
	"second": "″", "infinity": "∞", "element": "∈", "owner": "∋", "suchthat": "∋",
	"triangle": "△", "triangleinv": "▽", "negationslash": "/", "mapsto": "↦",
	"universal": "∀", "existential": "∃", "logicalnot": "¬", "emptyset": "∅",
	"Rfractur": "ℜ", "Rfraktur": "ℜ", "Ifractur": "ℑ", "Ifraktur": "ℑ",
	"latticetop": "⊤", "perpendicular": "⊥", "aleph": "ℵ", "union": "∪",
	"intersection": "∩", "unionmulti": "⊎", "logicaland": "∧", "logicalor": "∨",
	"turnstileleft": "⊢", "turnstileright": "⊣", "floorleft": "⌊", "floorright": "⌋",
	"ceilingleft": "⌈", "ceilingright": "⌉", "angbracketleft": "⟨",
	"angbracketright": "⟩", "angleleft": "⟨", "angleright": "⟩", "bardbl": "‖",
	"radical": "√", "nabla": "∇", "gradient": "∇", "integral": "∫", "unionsq": "⊔",
	"intersectionsq": "⊓", "subsetsqequal": "⊑", "supersetsqequal": "⊒",
	"club": "♣", "diamond": "♢", "heart": "♡", "spade": "♠", "partialdiff": "∂",
	"flat": "♭", "natural": "♮", "sharp": "♯", "star": "⋆", "lscript": "ℓ",
	"weierstrass": "℘", "therefore": "∴", "notequal": "≠", "notelement": "∉",
	"notsubset": "⊄", "congruent": "≅", "summation": "∑", "product": "∏",
	"coproduct": "∐", "angle": "∠", "lozenge": "◊", "degreesign": "°", "dotlessi1": "ı",
	"summationtext": "∑", "producttext": "∏", "integraltext": "∫",
	"integraldisplay": "∫", "vector": "⃗", "tie": "⁀",
	"copyrightsans": "©", "copyrightserif": "©", "registersans": "®",
	"registerserif": "®", "trademarksans": "™", "trademarkserif": "™",
}
