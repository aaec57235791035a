package config

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// machine lays out the files ChooseMemoryLimit reads: a 1 GB board's
// /proc/meminfo and whatever cgroup files a case adds.
func machine(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal:        1000000 kB\nMemFree:          500000 kB\n")}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestChooseMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	board := int64(1000000) << 10 // the MemTotal above
	tests := []struct {
		name       string
		setting    int64
		gomemlimit string
		sys        fstest.MapFS
		want       int64
		from       string
	}{
		{"no cgroup: a quarter of the machine", MemoryLimitAuto, "", machine(nil), board / 4, "1/4 of the machine's"},
		{"cgroup v2 limit", MemoryLimitAuto, "", machine(map[string]string{"sys/fs/cgroup/memory.max": "268435456\n"}), 192 * mib, "3/4 of the cgroup's 256MiB"},
		{"cgroup v2 max means none", MemoryLimitAuto, "", machine(map[string]string{"sys/fs/cgroup/memory.max": "max\n"}), board / 4, "1/4 of the machine's"},
		{"cgroup v2 of the process's own cgroup (systemd MemoryMax=)", MemoryLimitAuto, "", machine(map[string]string{
			"proc/self/cgroup": "0::/system.slice/cortex.service\n",
			"sys/fs/cgroup/system.slice/cortex.service/memory.max": "134217728\n",
			"sys/fs/cgroup/memory.max":                             "max\n",
		}), 96 * mib, "3/4 of the cgroup's 128MiB"},
		{"cgroup v1 limit", MemoryLimitAuto, "", machine(map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "209715200\n"}), 150 * mib, "cgroup's 200MiB"},
		{"cgroup v1 huge number means none", MemoryLimitAuto, "", machine(map[string]string{
			"proc/self/cgroup":                           "4:memory:/process_api/abc\n0::/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}), board / 4, "1/4 of the machine's"},
		{"cgroup above the machine's memory means none", MemoryLimitAuto, "", machine(map[string]string{"sys/fs/cgroup/memory.max": "4294967296"}), board / 4, "machine's"},
		{"large container: capped", MemoryLimitAuto, "", fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("4294967296")}}, 256 * mib, "cgroup's 4GiB, at most 256MiB"},
		{"large machine: capped", MemoryLimitAuto, "", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: 16777216 kB\n")}}, 256 * mib, "machine's 16GiB"},
		{"small container: floor", MemoryLimitAuto, "", machine(map[string]string{"sys/fs/cgroup/memory.max": "20971520"}), 32 * mib, "cgroup's 20MiB"},
		{"nothing readable: none", MemoryLimitAuto, "", fstest.MapFS{}, 0, "none"},
		{"unreadable meminfo: none", MemoryLimitAuto, "", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: lots\n")}}, 0, "none"},
		{"GOMEMLIMIT set: left to the runtime", MemoryLimitAuto, "100MiB", machine(map[string]string{"sys/fs/cgroup/memory.max": "268435456"}), 0, "GOMEMLIMIT"},
		{"flag set wins over GOMEMLIMIT", 96 * mib, "100MiB", machine(nil), 96 * mib, "--memory-limit"},
		{"flag set wins over the cgroup", 300 * mib, "", machine(map[string]string{"sys/fs/cgroup/memory.max": "268435456"}), 300 * mib, "--memory-limit"},
		{"off: Go's default", 0, "", machine(nil), 0, "off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChooseMemoryLimit(tt.setting, tt.gomemlimit, tt.sys)
			if got.Bytes != tt.want || !strings.Contains(got.From, tt.from) {
				t.Errorf("= %d (%s), %q; want %d (%s), with %q", got.Bytes, FormatSize(got.Bytes), got.From, tt.want, FormatSize(tt.want), tt.from)
			}
			// Only a limit cortex chose itself follows the live heap: the
			// operator's own (the flag, GOMEMLIMIT, off) is left as set.
			auto := tt.setting == MemoryLimitAuto && tt.gomemlimit == ""
			if got.FollowLive != auto || auto && !strings.Contains(got.From, "follow the live heap") {
				t.Errorf("FollowLive = %v (%q), want %v", got.FollowLive, got.From, auto)
			}
		})
	}
}

func TestLiveMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                string
		live, ceiling, want int64
	}{
		{"10k notes: live and half again, plus the margin", 24 * mib, 256 * mib, 44 * mib},
		{"a small vault: the floor", 4 * mib, 256 * mib, 32 * mib},
		{"a large vault: the ceiling", 200 * mib, 256 * mib, 256 * mib},
		{"no ceiling", 200 * mib, 0, 308 * mib},
		{"nothing live yet", 0, 256 * mib, 32 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LiveMemoryLimit(tt.live, tt.ceiling); got != tt.want {
				t.Errorf("LiveMemoryLimit(%s, %s) = %s, want %s", FormatSize(tt.live), FormatSize(tt.ceiling), FormatSize(got), FormatSize(tt.want))
			}
		})
	}
}

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"auto", MemoryLimitAuto}, {"AUTO", MemoryLimitAuto}, {"off", 0}, {"0", 0}, {" off ", 0},
		{"96MiB", 96 << 20}, {"1GiB", 1 << 30}, {"65536KiB", 64 << 20}, {"33554432", 32 << 20}, {"33554432B", 32 << 20},
	}
	for _, tt := range tests {
		if got, err := parseMemoryLimit(tt.in); err != nil || got != tt.want {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "lots", "96MB", "96 MiB", "-1", "1.5GiB", "16MiB", "99999999999TiB"} {
		_, err := parseMemoryLimit(bad)
		var e *Error
		if !errors.As(err, &e) || e.Setting != "--memory-limit" || e.Hint == "" {
			t.Errorf("parseMemoryLimit(%q) = %v, want a --memory-limit error with a hint", bad, err)
		}
	}
}

// The setting travels from the flag or the variable into Config, and a bad
// value stops the start with a message naming where it came from.
func TestParseMemoryLimitSetting(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--vault", filepath.Join(dir, "v"), "--state", filepath.Join(dir, "s")}
	c, err := Parse(base, env(nil), io.Discard)
	if err != nil || c.MemoryLimit != MemoryLimitAuto {
		t.Errorf("default: %d, %v; want auto", c.MemoryLimit, err)
	}
	c, err = Parse(append(base, "--memory-limit", "96MiB"), env(map[string]string{"CORTEX_MEMORY_LIMIT": "off"}), io.Discard)
	if err != nil || c.MemoryLimit != 96<<20 {
		t.Errorf("flag: %d, %v; want 96MiB", c.MemoryLimit, err)
	}
	c, err = Parse(base, env(map[string]string{"CORTEX_MEMORY_LIMIT": "off"}), io.Discard)
	if err != nil || c.MemoryLimit != 0 {
		t.Errorf("variable off: %d, %v; want 0", c.MemoryLimit, err)
	}
	_, err = Parse(base, env(map[string]string{"CORTEX_MEMORY_LIMIT": "96MB"}), io.Discard)
	if err == nil || err.Error() != `--memory-limit (set by CORTEX_MEMORY_LIMIT): "96MB" is not a size`+
		"\nhint: write a size such as 96MiB or 1GiB, or auto (the default) to let cortex choose, or off for Go's default" {
		t.Errorf("bad variable: %v", err)
	}
}
