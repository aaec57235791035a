package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"start","Package":"p/a"}`,
		`{"Action":"run","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestOK","Output":"    a_test.go:3: chatter\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"=== RUN   TestBrowser\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"    b_test.go:9: no chromium on PATH (apt-get install chromium)\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"--- SKIP: TestBrowser (0.00s)\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestBrowser"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestSuite/baseline-scenario"}`,
		`{"Action":"output","Package":"p/a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.1s\n"}`,
		`{"Action":"pass","Package":"p/a"}`,
	}, "\n")
	var out strings.Builder
	if code := run(strings.NewReader(stream), &out); code != 0 {
		t.Errorf("exit %d for a passing run", code)
	}
	got := out.String()
	for _, want := range []string{"ok  \tp/a\t0.1s\n", "1 TESTS SKIPPED", "SKIPPED p/a TestBrowser: no chromium on PATH (apt-get install chromium)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"chatter", "baseline-scenario", "PASS\n"} {
		if strings.Contains(got, not) {
			t.Errorf("report shows %q:\n%s", not, got)
		}
	}

	failing := strings.Join([]string{
		`{"Action":"output","Package":"p/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n    b_test.go:5: wrong\n"}`,
		`{"Action":"fail","Package":"p/b","Test":"TestBad"}`,
		`{"Action":"output","Package":"p/b","Output":"FAIL\tp/b\t0.1s\n"}`,
		`{"Action":"fail","Package":"p/b"}`,
	}, "\n")
	out.Reset()
	if code := run(strings.NewReader(failing), &out); code != 1 || !strings.Contains(out.String(), "b_test.go:5: wrong") {
		t.Errorf("failing run: exit %d, output:\n%s", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader("go: -race requires cgo\n"), &out); code != 1 || !strings.Contains(out.String(), "-race requires cgo") {
		t.Errorf("no results: exit %d, output:\n%s", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader(`{"ImportPath":"p/c","Action":"build-output","Output":"c.go:1: syntax error\n"}`+"\n"+`{"ImportPath":"p/c","Action":"build-fail"}`+"\n"+`{"Action":"fail","Package":"p/c"}`), &out); code != 1 {
		t.Errorf("build failure: exit %d", code)
	}
}

// The footer names .ci/install-test-deps only for a skip that waits for
// what it installs; the benchmark harness, skipped outside `make bench`,
// gets its own line.
func TestFooter(t *testing.T) {
	skipped := func(test, why string) string {
		return strings.Join([]string{
			`{"Action":"output","Package":"p/a","Test":"` + test + `","Output":"    x_test.go:9: ` + why + `\n"}`,
			`{"Action":"skip","Package":"p/a","Test":"` + test + `"}`,
		}, "\n")
	}
	pass := `{"Action":"pass","Package":"p/a"}`
	for _, tc := range []struct {
		name      string
		stream    string
		want, not []string
	}{
		{"bench only", skipped("TestBench", "set CORTEX_BENCH=1 (make bench) to run the benchmark harness") + "\n" + pass,
			[]string{"make bench"}, []string{"install-test-deps"}},
		{"a browser test", skipped("TestBrowser", "no chromium on PATH (apt-get install chromium)") + "\n" + pass,
			[]string{".ci/install-test-deps"}, []string{"make bench"}},
		{"short mode", skipped("TestFlood", "flood test") + "\n" + pass,
			nil, []string{"install-test-deps", "make bench"}},
	} {
		var out strings.Builder
		run(strings.NewReader(tc.stream), &out)
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: footer lacks %q:\n%s", tc.name, w, out.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out.String(), n) {
				t.Errorf("%s: footer says %q:\n%s", tc.name, n, out.String())
			}
		}
	}
}
