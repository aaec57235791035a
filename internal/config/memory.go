package config

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// MemoryLimitAuto is Config.MemoryLimit when cortex chooses the soft
// memory limit itself at start (--memory-limit auto, the default).
const MemoryLimitAuto int64 = -1

// The automatic limit. Go's collector lets the heap grow to twice what is
// live before it collects (GOGC=100), so after traffic a process sits at
// about twice its index whatever the machine; a soft limit makes it
// collect sooner once the heap nears the limit instead.
//
//   - In a container (a cgroup memory limit), three quarters of that limit:
//     the container is cortex's alone, and the quarter left is for what the
//     Go runtime does not count (thread stacks outside the heap, SQLite's
//     own allocations, the page cache charged to the cgroup).
//   - Otherwise a quarter of the machine's memory, which is shared with the
//     system and other programs: 256 MiB on a 1 GB Raspberry Pi.
//   - At most autoMemoryCap: it is a default for a notes server, and it stays
//     above what a 50k-note vault keeps live (about 110 MB), so the collector
//     does not run without pause there; a larger vault, or a machine with
//     memory to spare, sets --memory-limit.
//   - At least autoMemoryFloor: below it the collector would run almost all
//     the time on even a small vault.
//
// That limit is a ceiling: once the vault has been read (the index built,
// the history's first pass done), cortex lowers the limit to follow what
// is live (LiveMemoryLimit), so that a 10k-note vault stays near 64 MB of
// RSS whatever the machine, rather than near twice its heap.
const (
	autoMemoryFloor = 32 << 20
	autoMemoryCap   = 256 << 20
	// liveMargin is what LiveMemoryLimit allows above one and a half times
	// the live heap: the runtime's own memory beside the heap (its
	// metadata, goroutine stacks; about 6 MB on a 10k-note vault) and room
	// for a burst of requests on a small vault.
	liveMargin = 8 << 20
	// unlimitedCgroup is where a cgroup v1 limit means none: the kernel
	// writes the largest page-aligned int64 (9223372036854771712).
	unlimitedCgroup = 1 << 62
)

// parseMemoryLimit reads --memory-limit: auto, off (or 0), or a size in
// GOMEMLIMIT's syntax (a number of bytes with an optional B, KiB, MiB,
// GiB or TiB), at least autoMemoryFloor.
func parseMemoryLimit(s string) (int64, error) {
	v := strings.TrimSpace(s)
	switch strings.ToLower(v) {
	case "auto":
		return MemoryLimitAuto, nil
	case "off", "0":
		return 0, nil
	}
	hint := "write a size such as 96MiB or 1GiB, or auto (the default) to let cortex choose, or off for Go's default"
	n, ok := parseSize(v)
	if !ok {
		return 0, &Error{Setting: "--memory-limit", Problem: fmt.Sprintf("%q is not a size", s), Hint: hint}
	}
	if n < autoMemoryFloor {
		return 0, &Error{Setting: "--memory-limit", Problem: fmt.Sprintf("%q is below 32MiB, where the collector would run almost all the time", s), Hint: hint}
	}
	return n, nil
}

// parseSize reads a whole number of bytes with an optional unit, as the Go
// runtime reads GOMEMLIMIT, so that one syntax serves both.
func parseSize(s string) (int64, bool) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = num, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, false
	}
	return n << shift, true
}

// MemoryLimitChoice is the soft memory limit cortex sets at start and why,
// for the start-up log.
type MemoryLimitChoice struct {
	// Bytes is the limit to set; 0 leaves the Go runtime's own (what
	// GOMEMLIMIT says, or none).
	Bytes int64
	// From says where the limit came from, as a phrase for the log.
	From string
	// FollowLive says cortex chose the limit itself: it may lower it to
	// follow the live heap (LiveMemoryLimit), Bytes (when not 0) staying
	// the most it sets.
	FollowLive bool
}

// LiveMemoryLimit is the soft memory limit for a live heap of live bytes:
// one and a half times it plus liveMargin, at least autoMemoryFloor and at
// most ceiling (none when 0). Go's default lets the heap grow to twice
// what is live, and the memory it grew into stays with the process for
// minutes; this bounds the process nearer its live heap, at the cost of
// collecting about twice as often. The index keeps few pointers, so a
// collection is cheap; and the limit moves with the live heap, so a vault
// that grows never leaves the collector running without pause.
func LiveMemoryLimit(live, ceiling int64) int64 {
	n := max(live+live/2+liveMargin, autoMemoryFloor)
	if ceiling > 0 {
		n = min(n, ceiling)
	}
	return n
}

// ChooseMemoryLimit turns the --memory-limit setting into the limit to set.
// An explicit size or off wins over everything; auto leaves GOMEMLIMIT (the
// variable gomemlimit) to the runtime when the operator set it, and
// otherwise reads the cgroup's and the machine's memory under sys, the
// machine's root (HostRoot; a map in tests).
func ChooseMemoryLimit(setting int64, gomemlimit string, sys fs.FS) MemoryLimitChoice {
	switch {
	case setting > 0:
		return MemoryLimitChoice{Bytes: setting, From: "--memory-limit"}
	case setting == 0:
		return MemoryLimitChoice{From: "--memory-limit off: Go's default"}
	case strings.TrimSpace(gomemlimit) != "":
		return MemoryLimitChoice{From: "GOMEMLIMIT, left to the Go runtime"}
	}
	machine := memTotal(sys)
	if cg := cgroupLimit(sys); cg > 0 && (machine == 0 || cg < machine) {
		return MemoryLimitChoice{Bytes: clampAuto(cg / 4 * 3), FollowLive: true,
			From: fmt.Sprintf("3/4 of the cgroup's %s, at most %s, lowered to follow the live heap", FormatSize(cg), FormatSize(autoMemoryCap))}
	}
	if machine > 0 {
		return MemoryLimitChoice{Bytes: clampAuto(machine / 4), FollowLive: true,
			From: fmt.Sprintf("1/4 of the machine's %s, at most %s, lowered to follow the live heap", FormatSize(machine), FormatSize(autoMemoryCap))}
	}
	return MemoryLimitChoice{FollowLive: true,
		From: "none while the vault is read: neither a cgroup limit nor the machine's memory could be read; then lowered to follow the live heap"}
}

func clampAuto(n int64) int64 { return min(max(n, autoMemoryFloor), autoMemoryCap) }

// HostRoot is the file system ChooseMemoryLimit reads on a real machine.
func HostRoot() fs.FS { return os.DirFS("/") }

// cgroupLimit is the memory limit of the cgroup cortex runs in, 0 when
// there is none or it cannot be read. The process's own cgroup (from
// /proc/self/cgroup, as a systemd unit's MemoryMax= sets) is tried before
// the root of the mount, which is the container's own in a container.
func cgroupLimit(sys fs.FS) int64 {
	var v2, v1 string // the process's cgroup paths, without the leading '/'
	if b, err := fs.ReadFile(sys, "proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			parts := strings.SplitN(line, ":", 3)
			if len(parts) != 3 {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				v2 = strings.Trim(parts[2], "/")
			case strings.Contains(","+parts[1]+",", ",memory,"):
				v1 = strings.Trim(parts[2], "/")
			}
		}
	}
	candidates := []string{
		"sys/fs/cgroup/" + v2 + "/memory.max", "sys/fs/cgroup/memory.max",
		"sys/fs/cgroup/memory/" + v1 + "/memory.limit_in_bytes", "sys/fs/cgroup/memory/memory.limit_in_bytes",
	}
	for _, name := range candidates {
		b, err := fs.ReadFile(sys, strings.ReplaceAll(name, "//", "/"))
		if err != nil {
			continue
		}
		v := string(bytes.TrimSpace(b))
		if v == "max" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n >= unlimitedCgroup {
			return 0
		}
		return n
	}
	return 0
}

// memTotal is the machine's memory from /proc/meminfo, 0 when unknown.
func memTotal(sys fs.FS) int64 {
	f, err := sys.Open("proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil || kb <= 0 || kb > math.MaxInt64>>10 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// FormatSize writes n bytes for the log, in GOMEMLIMIT's units: whole GiB
// or MiB when n is a multiple of one, else to a tenth.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%dB", n)
}
