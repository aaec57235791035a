package deploytest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The test prerequisites are installed by one script, which both .ci/run
// and GitHub's workflow run before `make test`, so that both test alike.
func TestCIInstallsTestPrerequisites(t *testing.T) {
	script, err := os.ReadFile(root(".ci/install-test-deps"))
	if err != nil {
		t.Fatal(err)
	}
	// DPkg::Lock::Timeout: another apt holding the lock (unattended
	// upgrades on a fresh machine) is waited for, not a failure.
	for _, s := range []string{"chromium", "google-chrome", "gcc", "npm ci", "conformance-package-lock.json", "GITHUB_ENV",
		"DPkg::Lock::Timeout"} {
		if !strings.Contains(string(script), s) {
			t.Errorf(".ci/install-test-deps lacks %q", s)
		}
	}
	run, err := os.ReadFile(root(".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(string(run), ".ci/install-test-deps"), strings.Index(string(run), "make test"); i < 0 || j < i {
		t.Error(".ci/run must run .ci/install-test-deps before make test")
	}
	var ci workflow
	readYAML(t, ".github/workflows/ci.yml", &ci)
	var steps []string
	for _, s := range ci.Jobs["test"].Steps {
		steps = append(steps, s.Uses+s.Run)
	}
	i := slices.Index(steps, ".ci/install-test-deps")
	j := slices.Index(steps, "make test")
	if i < 0 || j < i {
		t.Errorf("ci.yml's test job runs %q; want .ci/install-test-deps before make test", steps)
	}
	for _, want := range []string{
		"actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
		"actions/setup-go@b7ad1dad31e06c5925ef5d2fc7ad053ef454303e",
	} {
		if !slices.Contains(steps, want) {
			t.Errorf("ci.yml's test job does not use %s (the node24 releases)", want)
		}
	}
}

// Dependabot watches the Go modules, the actions and the base image, whose
// digest it reads from image/base/Dockerfile: the same as ko.yaml's.
func TestBaseImageWatched(t *testing.T) {
	var d struct {
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
		} `yaml:"updates"`
	}
	readYAML(t, ".github/dependabot.yml", &d)
	got := map[string]string{}
	for _, u := range d.Updates {
		got[u.Ecosystem] = u.Directory
	}
	if got["gomod"] != "/" || got["github-actions"] != "/" || got["docker"] != "/image/base" {
		t.Errorf("dependabot updates = %v; want gomod and github-actions at /, docker at /image/base", got)
	}
	var k struct {
		DefaultBaseImage string `yaml:"defaultBaseImage"`
	}
	readYAML(t, "ko.yaml", &k)
	df, err := os.ReadFile(root("image/base/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, line := range strings.Split(string(df), "\n") {
		if rest, ok := strings.CutPrefix(line, "FROM "); ok {
			from = append(from, strings.TrimSpace(rest))
		}
	}
	if len(from) != 1 || from[0] != k.DefaultBaseImage {
		t.Errorf("image/base/Dockerfile FROM %q; want ko.yaml's %q", from, k.DefaultBaseImage)
	}
}
