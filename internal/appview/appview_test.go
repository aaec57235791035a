package appview

import (
	"regexp"
	"strings"
	"testing"
)

// The views must stay small and self-contained: a host frames them under a
// policy that allows no outside address, so any URL in them would be a
// request that fails, or one that leaks.
func TestViewsAreSmallAndSelfContained(t *testing.T) {
	outside := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z]+:|@import|url\(|//[a-z0-9.-]+\.[a-z]{2,}/`)
	for _, v := range Views() {
		if n := len(v.HTML); n > 30<<10 {
			t.Errorf("%s: %d bytes, over 30 KB", v.URI, n)
		}
		t.Logf("%s: %d bytes", v.URI, len(v.HTML))
		if strings.Contains(v.HTML, "/*STYLE*/") || strings.Contains(v.HTML, "/*BRIDGE*/") {
			t.Errorf("%s: a placeholder was not filled", v.URI)
		}
		if m := outside.FindString(v.HTML); m != "" {
			t.Errorf("%s: refers outside the page: %q", v.URI, m)
		}
		if strings.Contains(v.HTML, "innerHTML") || strings.Contains(v.HTML, "insertAdjacentHTML") || strings.Contains(v.HTML, "document.write") {
			t.Errorf("%s: builds markup from text", v.URI)
		}
		if !strings.HasPrefix(v.HTML, "<!DOCTYPE html>") {
			t.Errorf("%s: not an HTML5 document", v.URI)
		}
	}
	if _, ok := Lookup("ui://cortex/none"); ok {
		t.Error("Lookup found a view that does not exist")
	}
}
