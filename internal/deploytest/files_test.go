package deploytest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func root(name string) string { return filepath.Join("..", "..", name) }

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(root(name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type composeFile struct {
	Services map[string]struct {
		Image         string            `yaml:"image"`
		ContainerName string            `yaml:"container_name"`
		Command       []string          `yaml:"command"`
		Restart       string            `yaml:"restart"`
		User          string            `yaml:"user"`
		Ports         []string          `yaml:"ports"`
		Environment   map[string]string `yaml:"environment"`
		Volumes       []string          `yaml:"volumes"`
		ReadOnly      bool              `yaml:"read_only"`
		CapDrop       []string          `yaml:"cap_drop"`
		CapAdd        []string          `yaml:"cap_add"`
		SecurityOpt   []string          `yaml:"security_opt"`
		Healthcheck   struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func TestCompose(t *testing.T) {
	var c composeFile
	readYAML(t, "image/compose.yaml", &c)
	s, ok := c.Services["cortex"]
	if !ok {
		t.Fatal("no cortex service")
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"image is cortex's", strings.HasPrefix(s.Image, "ghcr.io/cortex-mcp/cortex")},
		{"container is named cortex (for docker exec -it cortex …)", s.ContainerName == "cortex"},
		{"runs serve", slices.Equal(s.Command, []string{"serve"})},
		{"restarts by itself", s.Restart == "unless-stopped" || s.Restart == "always"},
		{"runs as uid 65532", strings.HasPrefix(s.User, "65532")},
		{"publishes 80", slices.Contains(s.Ports, "80:80")},
		{"publishes 443", slices.Contains(s.Ports, "443:443")},
		{"vault volume", slices.Contains(s.Volumes, "vault:/data/vault")},
		{"state volume", slices.Contains(s.Volumes, "state:/data/state")},
		{"vault volume declared", hasKey(c.Volumes, "vault")},
		{"state volume declared", hasKey(c.Volumes, "state")},
		{"CORTEX_VAULT", s.Environment["CORTEX_VAULT"] == "/data/vault"},
		{"CORTEX_STATE (so docker exec … admin finds the state)", s.Environment["CORTEX_STATE"] == "/data/state"},
		{"CORTEX_TLS=acme", s.Environment["CORTEX_TLS"] == "acme"},
		{"CORTEX_PUBLIC_URL is https", strings.HasPrefix(s.Environment["CORTEX_PUBLIC_URL"], "https://")},
		{"read-only root", s.ReadOnly},
		{"drops all capabilities", slices.Equal(s.CapDrop, []string{"ALL"}) && len(s.CapAdd) == 0},
		{"no-new-privileges", slices.Contains(s.SecurityOpt, "no-new-privileges:true")},
		{"healthcheck runs cortex healthcheck", len(s.Healthcheck.Test) == 3 && s.Healthcheck.Test[0] == "CMD" &&
			strings.HasSuffix(s.Healthcheck.Test[1], "cortex") && s.Healthcheck.Test[2] == "healthcheck"},
		{"waits for the volume owner fix", s.DependsOn["volumes-init"].Condition == "service_completed_successfully"},
		{"backups volume", slices.Contains(s.Volumes, "backups:/data/backups")},
		{"backups volume declared", hasKey(c.Volumes, "backups")},
		{"CORTEX_BACKUP_DIR is the backups volume (serve backs up on schedule)", s.Environment["CORTEX_BACKUP_DIR"] == "/data/backups"},
		{"volume owner fix mounts the backups volume", slices.Contains(c.Services["volumes-init"].Volumes, "backups:/data/backups")},
		{"volume owner fix chowns the backups volume", slices.Contains(c.Services["volumes-init"].Command, "/data/backups")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("compose.yaml: %s", c.what)
		}
	}
	b, _ := os.ReadFile(root("image/compose.yaml"))
	if !strings.Contains(string(b), "# syncthing:") {
		t.Errorf("compose.yaml: the commented Syncthing service is missing")
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// unit is a systemd unit file: section -> key -> values in order.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, name string) unit {
	t.Helper()
	f, err := os.Open(root(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: not a key=value line in a section: %q", name, n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSystemdUnit(t *testing.T) {
	u := parseUnit(t, "image/cortex.service")
	s := u["Service"]
	want := map[string]string{
		"User":                    "cortex",
		"StateDirectory":          "cortex",
		"StateDirectoryMode":      "0700",
		"AmbientCapabilities":     "CAP_NET_BIND_SERVICE",
		"CapabilityBoundingSet":   "CAP_NET_BIND_SERVICE",
		"NoNewPrivileges":         "yes",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"PrivateDevices":          "yes",
		"RestrictSUIDSGID":        "yes",
		"MemoryDenyWriteExecute":  "yes",
		"ReadWritePaths":          "/srv/cortex/vault",
		"ExecStart":               "/usr/local/bin/cortex serve",
		"Restart":                 "on-failure",
		"SystemCallArchitectures": "native",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"ProtectKernelTunables":   "yes",
		"ProtectControlGroups":    "yes",
		"UMask":                   "0077",
		"LockPersonality":         "yes",
		"RestrictNamespaces":      "yes",
		"ProtectKernelModules":    "yes",
		"SystemCallErrorNumber":   "EPERM",
	}
	for k, v := range want {
		if got := s[k]; len(got) == 0 || got[len(got)-1] != v {
			t.Errorf("cortex.service [Service] %s = %q, want %q", k, got, v)
		}
	}
	env := strings.Join(s["Environment"], " ")
	for _, kv := range []string{"CORTEX_VAULT=/srv/cortex/vault", "CORTEX_STATE=/var/lib/cortex", "CORTEX_TLS=acme"} {
		if !strings.Contains(env, kv) {
			t.Errorf("cortex.service: Environment lacks %s", kv)
		}
	}
	if got := u["Install"]["WantedBy"]; len(got) != 1 || got[0] != "multi-user.target" {
		t.Errorf("cortex.service: WantedBy = %q", got)
	}
}

var digestRef = regexp.MustCompile(`^gcr\.io/distroless/static-debian1[23]:nonroot@sha256:[0-9a-f]{64}$`)

func TestKo(t *testing.T) {
	var k struct {
		DefaultBaseImage string   `yaml:"defaultBaseImage"`
		DefaultPlatforms []string `yaml:"defaultPlatforms"`
		Builds           []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	readYAML(t, "ko.yaml", &k)
	if !digestRef.MatchString(k.DefaultBaseImage) {
		t.Errorf("ko.yaml base %q is not distroless static nonroot pinned by digest", k.DefaultBaseImage)
	}
	if want := []string{"linux/amd64", "linux/arm64", "linux/arm/v7"}; !slices.Equal(k.DefaultPlatforms, want) {
		t.Errorf("ko.yaml platforms = %v, want %v", k.DefaultPlatforms, want)
	}
	if len(k.Builds) != 1 {
		t.Fatalf("ko.yaml: %d builds, want 1", len(k.Builds))
	}
	b := k.Builds[0]
	if b.Main != "./cmd/cortex" || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") ||
		!strings.Contains(strings.Join(b.Ldflags, " "), "-X main.version=") {
		t.Errorf("ko.yaml build = %+v; want ./cmd/cortex, CGO_ENABLED=0, -trimpath, -X main.version=", b)
	}
}

func TestGoreleaser(t *testing.T) {
	var g struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Goos   []string `yaml:"goos"`
			Goarch []string `yaml:"goarch"`
			Goarm  []string `yaml:"goarm"`
			Env    []string `yaml:"env"`
			Flags  []string `yaml:"flags"`
		} `yaml:"builds"`
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
		Checksum map[string]string `yaml:"checksum"`
		Sboms    []map[string]any  `yaml:"sboms"`
		Kos      []struct {
			BaseImage string   `yaml:"base_image"`
			Platforms []string `yaml:"platforms"`
			Sbom      string   `yaml:"sbom"`
		} `yaml:"kos"`
		Signs []struct {
			Cmd       string   `yaml:"cmd"`
			Artifacts string   `yaml:"artifacts"`
			Args      []string `yaml:"args"`
		} `yaml:"signs"`
		DockerSigns []struct {
			Cmd  string   `yaml:"cmd"`
			Args []string `yaml:"args"`
		} `yaml:"docker_signs"`
	}
	readYAML(t, ".goreleaser.yaml", &g)
	if g.Version != 2 || len(g.Builds) != 1 || len(g.Kos) != 1 || len(g.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: want version 2 with one build, one archive and one kos entry")
	}
	b := g.Builds[0]
	if !slices.Equal(b.Goos, []string{"linux", "darwin"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64", "arm"}) ||
		!slices.Equal(b.Goarm, []string{"7"}) || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf(".goreleaser.yaml build = %+v", b)
	}
	for _, f := range []string{"LICENSE", "README.md"} {
		if !slices.Contains(g.Archives[0].Files, f) {
			t.Errorf(".goreleaser.yaml archives lack %s", f)
		}
	}
	if len(g.Sboms) == 0 || g.Checksum["name_template"] == "" {
		t.Errorf(".goreleaser.yaml needs checksums and SBOMs")
	}
	k := g.Kos[0]
	if !digestRef.MatchString(k.BaseImage) || !slices.Equal(k.Platforms, []string{"linux/amd64", "linux/arm64", "linux/arm/v7"}) || k.Sbom == "" {
		t.Errorf(".goreleaser.yaml kos = %+v", k)
	}
	var ko struct {
		DefaultBaseImage string `yaml:"defaultBaseImage"`
	}
	readYAML(t, "ko.yaml", &ko)
	if k.BaseImage != ko.DefaultBaseImage {
		t.Errorf("base images differ: .goreleaser.yaml %q, ko.yaml %q", k.BaseImage, ko.DefaultBaseImage)
	}
	if len(g.Signs) != 1 || g.Signs[0].Cmd != "cosign" || g.Signs[0].Artifacts != "checksum" || !slices.Contains(g.Signs[0].Args, "sign-blob") {
		t.Errorf(".goreleaser.yaml signs = %+v, want cosign sign-blob of the checksums", g.Signs)
	}
	if len(g.DockerSigns) != 1 || g.DockerSigns[0].Cmd != "cosign" || !slices.Contains(g.DockerSigns[0].Args, "${artifact}") {
		t.Errorf(".goreleaser.yaml docker_signs = %+v, want cosign sign ${artifact}", g.DockerSigns)
	}
}

type workflow struct {
	On          any              `yaml:"on"`
	Permissions any              `yaml:"permissions"`
	Jobs        map[string]wfJob `yaml:"jobs"`
}

type wfJob struct {
	Permissions any    `yaml:"permissions"`
	Uses        string `yaml:"uses"`
	Needs       any    `yaml:"needs"`
	Steps       []struct {
		Uses string         `yaml:"uses"`
		Run  string         `yaml:"run"`
		With map[string]any `yaml:"with"`
	} `yaml:"steps"`
}

var pinnedAction = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9._/-]+@[0-9a-f]{40}$`)

func TestWorkflowsPinnedAndLeastPrivilege(t *testing.T) {
	files, err := filepath.Glob(root(".github/workflows/*.yml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("workflows: %v %v", files, err)
	}
	raw := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw[filepath.Base(f)] = string(b)
		var w workflow
		if err := yaml.Unmarshal(b, &w); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if w.Permissions == nil {
			t.Errorf("%s: no top-level permissions", f)
		}
		for name, j := range w.Jobs {
			for _, s := range j.Steps {
				if s.Uses == "" {
					continue
				}
				if !pinnedAction.MatchString(s.Uses) {
					t.Errorf("%s job %s: %q is not pinned by commit SHA", filepath.Base(f), name, s.Uses)
				}
				if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
					t.Errorf("%s job %s: checkout without persist-credentials: false", filepath.Base(f), name)
				}
			}
		}
	}
	// Every pinned action names its version in a comment.
	for name, text := range raw {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "uses:") && strings.Contains(line, "@") && !regexp.MustCompile(`@[0-9a-f]{40} # v\d`).MatchString(line) {
				t.Errorf("%s: %q lacks a # vX.Y.Z comment", name, strings.TrimSpace(line))
			}
		}
	}

	var rel workflow
	readYAML(t, ".github/workflows/release.yml", &rel)
	j, ok := rel.Jobs["release"]
	if !ok {
		t.Fatal("release.yml: no release job")
	}
	want := map[string]any{"contents": "write", "packages": "write", "id-token": "write"}
	got, _ := j.Permissions.(map[string]any)
	if len(got) != len(want) {
		t.Errorf("release job permissions = %v, want exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("release job permission %s = %v, want %v", k, got[k], v)
		}
	}
	if j.Needs != "ci" || rel.Jobs["ci"].Uses != "./.github/workflows/ci.yml" {
		t.Errorf("release job must run after the ci workflow (needs: ci)")
	}
	for _, s := range []string{"tags:", `"v*"`, "cosign verify-blob", "cosign verify \\", "--certificate-identity", "token.actions.githubusercontent.com"} {
		if !strings.Contains(raw["release.yml"], s) {
			t.Errorf("release.yml lacks %q", s)
		}
	}
	for _, s := range []string{"gofmt", "go mod tidy -diff", "make vet", "make test", "make fuzz", "make staticcheck", "make vuln-online", "make gosec", "make actionlint", "make release-check", "make snapshot"} {
		if !strings.Contains(raw["ci.yml"], s) {
			t.Errorf("ci.yml lacks %q", s)
		}
	}
}

func TestLicenseIsApache2(t *testing.T) {
	b, err := os.ReadFile(root("LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "END OF TERMS AND CONDITIONS"} {
		if !strings.Contains(s, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
}
