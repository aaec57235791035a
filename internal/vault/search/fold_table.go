package search

// The tables map each code point of Latin-1 Supplement and Latin
// Extended-A/B (U+00C0–U+024F) and of Latin Extended Additional
// (U+1E00–U+1EFF) to its folded form: lowercase, without diacritics, with
// ligatures and special letters spelled out (ß→ss, æ→ae, œ→oe, ø→o, þ→th).
// They were derived from Unicode decompositions and character names.
// Never modified at run time.

const (
	foldLatinLo = 0x00C0
	foldLatinHi = 0x024F
	foldExtLo   = 0x1E00
	foldExtHi   = 0x1EFF
)

var foldLatin = [foldLatinHi - foldLatinLo + 1]string{
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i", // U+00C0
	"d", "n", "o", "o", "o", "o", "o", "×", "o", "u", "u", "u", "u", "y", "th", "ss", // U+00D0
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i", // U+00E0
	"d", "n", "o", "o", "o", "o", "o", "÷", "o", "u", "u", "u", "u", "y", "th", "y", // U+00F0
	"a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d", // U+0100
	"d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g", // U+0110
	"g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i", // U+0120
	"i", "i", "ij", "ij", "j", "j", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l", // U+0130
	"l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o", // U+0140
	"o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s", // U+0150
	"s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u", // U+0160
	"u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s", // U+0170
	"b", "b", "b", "b", "ƅ", "ƅ", "ɔ", "c", "c", "ɖ", "d", "d", "d", "ƍ", "ǝ", "ə", // U+0180
	"ɛ", "f", "f", "g", "ɣ", "hv", "ɩ", "i", "k", "k", "l", "ƛ", "ɯ", "n", "n", "o", // U+0190
	"o", "o", "oi", "oi", "p", "p", "ʀ", "ƨ", "ƨ", "ʃ", "ƪ", "t", "t", "t", "t", "u", // U+01A0
	"u", "ʊ", "v", "y", "y", "z", "z", "ʒ", "ƹ", "ƹ", "ƺ", "ƻ", "ƽ", "ƽ", "ƾ", "ƿ", // U+01B0
	"ǀ", "ǁ", "ǂ", "ǃ", "dz", "dz", "dz", "lj", "lj", "lj", "nj", "nj", "nj", "a", "a", "i", // U+01C0
	"i", "o", "o", "u", "u", "u", "u", "u", "u", "u", "u", "u", "u", "ǝ", "a", "a", // U+01D0
	"a", "a", "ae", "ae", "g", "g", "g", "g", "k", "k", "o", "o", "o", "o", "ǯ", "ǯ", // U+01E0
	"j", "dz", "dz", "dz", "g", "g", "hv", "ƿ", "n", "n", "a", "a", "ae", "ae", "o", "o", // U+01F0
	"a", "a", "a", "a", "e", "e", "e", "e", "i", "i", "i", "i", "o", "o", "o", "o", // U+0200
	"r", "r", "r", "r", "u", "u", "u", "u", "s", "s", "t", "t", "ȝ", "ȝ", "h", "h", // U+0210
	"n", "d", "ou", "ou", "z", "z", "a", "a", "e", "e", "o", "o", "o", "o", "o", "o", // U+0220
	"o", "o", "y", "y", "l", "n", "t", "ȷ", "ȸ", "ȹ", "a", "c", "c", "l", "t", "s", // U+0230
	"z", "ɂ", "ɂ", "b", "ʉ", "ʌ", "e", "e", "j", "j", "q", "q", "r", "r", "y", "y", // U+0240
}

var foldExt = [foldExtHi - foldExtLo + 1]string{
	"a", "a", "b", "b", "b", "b", "b", "b", "c", "c", "d", "d", "d", "d", "d", "d", // U+1E00
	"d", "d", "d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "f", "f", // U+1E10
	"g", "g", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "i", "i", "i", "i", // U+1E20
	"k", "k", "k", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l", "l", "m", "m", // U+1E30
	"m", "m", "m", "m", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o", // U+1E40
	"o", "o", "o", "o", "p", "p", "p", "p", "r", "r", "r", "r", "r", "r", "r", "r", // U+1E50
	"s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "t", "t", "t", "t", "t", "t", // U+1E60
	"t", "t", "u", "u", "u", "u", "u", "u", "u", "u", "u", "u", "v", "v", "v", "v", // U+1E70
	"w", "w", "w", "w", "w", "w", "w", "w", "w", "w", "x", "x", "x", "x", "y", "y", // U+1E80
	"z", "z", "z", "z", "z", "z", "h", "t", "w", "y", "a", "s", "ẜ", "ẝ", "ss", "ẟ", // U+1E90
	"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", // U+1EA0
	"a", "a", "a", "a", "a", "a", "a", "a", "e", "e", "e", "e", "e", "e", "e", "e", // U+1EB0
	"e", "e", "e", "e", "e", "e", "e", "e", "i", "i", "i", "i", "o", "o", "o", "o", // U+1EC0
	"o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", "o", // U+1ED0
	"o", "o", "o", "o", "u", "u", "u", "u", "u", "u", "u", "u", "u", "u", "u", "u", // U+1EE0
	"u", "u", "y", "y", "y", "y", "y", "y", "y", "y", "ỻ", "ỻ", "ỽ", "ỽ", "y", "y", // U+1EF0
}
