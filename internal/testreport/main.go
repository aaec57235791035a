// Command testreport reads `go test -json` on standard input and prints what
// `go test` would (each package's result line, and the output of tests that
// fail), then lists every top-level test that was skipped, with the reason
// it gave, so that a missing prerequisite (Chromium, the conformance suite)
// is seen rather than passed over. `make test` pipes into it.
//
// It exits 1 when a test or a build failed, or when the input held no
// result at all (go test could not start). It reads and writes nothing else.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

type skip struct {
	pkg, test, reason string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	type key struct{ pkg, test string }
	buffered := map[key][]string{}
	var skips []skip
	failed, results := false, 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not JSON: something go test printed itself; pass it on.
			fmt.Fprintln(out, sc.Text())
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			failed = true
		case "output":
			if e.Test == "" {
				if e.Output != "PASS\n" {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			buffered[k] = append(buffered[k], e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				results++
				failed = failed || e.Action == "fail"
				continue
			}
			switch e.Action {
			case "fail":
				failed = true
				fmt.Fprint(out, strings.Join(buffered[k], ""))
			case "skip":
				if !strings.Contains(e.Test, "/") {
					skips = append(skips, skip{e.Package, e.Test, reason(buffered[k])})
				}
			}
			delete(buffered, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testreport: reading go test's output: %v\n", err)
		return 1
	}
	if len(skips) > 0 {
		sort.Slice(skips, func(i, j int) bool {
			return skips[i].pkg+" "+skips[i].test < skips[j].pkg+" "+skips[j].test
		})
		fmt.Fprintf(out, "\n========== %d TESTS SKIPPED ==========\n", len(skips))
		for _, s := range skips {
			fmt.Fprintf(out, "SKIPPED %s %s: %s\n", s.pkg, s.test, s.reason)
		}
		for _, l := range footer(skips) {
			fmt.Fprintln(out, l)
		}
	}
	if results == 0 {
		fmt.Fprintln(out, "testreport: go test reported no package result; see its errors above")
		return 1
	}
	if failed {
		return 1
	}
	return 0
}

// footer says what runs the skipped tests: .ci/install-test-deps only when
// one waits for what it installs (Chromium, the conformance suite), and
// `make bench` for the benchmark harness, which skips everywhere else by
// design. Other skips (short mode, a file system without a feature) give
// their own reason.
func footer(skips []skip) []string {
	var deps, bench bool
	for _, s := range skips {
		r := strings.ToLower(s.reason)
		switch {
		case strings.Contains(r, "make bench"):
			bench = true
		case strings.Contains(r, "chromium") || strings.Contains(r, "conformance"):
			deps = true
		}
	}
	var lines []string
	if deps {
		lines = append(lines, "(install what the browser and conformance tests need with .ci/install-test-deps; README, Development)")
	}
	if bench {
		lines = append(lines, "(the benchmark harness runs only with `make bench`; nothing to install)")
	}
	return lines
}

// reason is what a skipped test logged, without the framework's own lines.
func reason(lines []string) string {
	var kept []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		// "file_test.go:12: message" → "message"
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return "no reason given"
	}
	return strings.Join(kept, " ")
}
