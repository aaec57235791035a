package admin

import (
	"strings"

	"rsc.io/qr"
)

// qrQuiet is the light margin around the code, in modules; scanners need it.
const qrQuiet = 4

// qrText draws text as a QR code with half-block characters, two module rows
// per line. Light modules are drawn as blocks, dark ones as blanks, so on
// the usual dark terminal the code appears dark-on-light as printed codes do.
func qrText(text string) (string, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", err
	}
	n := code.Size
	light := func(x, y int) bool {
		if x < 0 || y < 0 || x >= n || y >= n {
			return true
		}
		return !code.Black(x, y)
	}
	var b strings.Builder
	for y := -qrQuiet; y < n+qrQuiet; y += 2 {
		b.WriteString("   ")
		for x := -qrQuiet; x < n+qrQuiet; x++ {
			top, bottom := light(x, y), light(x, y+1) && y+1 < n+qrQuiet
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
