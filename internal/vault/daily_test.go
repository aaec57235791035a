package vault

import (
	"fmt"
	"testing"
	"time"
)

func TestMomentFormat(t *testing.T) {
	day := time.Date(2026, 12, 1, 9, 5, 7, 0, time.UTC) // a Tuesday, ISO week 49
	for f, want := range map[string]string{
		"YYYY-MM-DD":              "2026-12-01",
		"YYYY/MM/YYYY-MM-DD":      "2026/12/2026-12-01",
		"dddd, MMMM Do YYYY":      "Tuesday, December 1st 2026",
		"ddd D MMM YY":            "Tue 1 Dec 26",
		"[Week] WW [of] GGGG":     "Week 49 of 2026",
		"YYYY-[W]ww-E":            "2026-W49-2",
		"HH:mm:ss A":              "09:05:07 AM",
		"[Daily] YYYY-MM-DD [at]": "Daily 2026-12-01 at",
		"Q-M-D":                   "4-12-1",
	} {
		if got := MomentFormat(day, f); got != want {
			t.Errorf("MomentFormat(%q) = %q, want %q", f, got, want)
		}
	}
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 31: "31st"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q", n, got)
		}
	}
}

func TestParseDay(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 30, 0, 0, time.UTC)
	for in, want := range map[string]string{"today": "2026-03-01", " Yesterday ": "2026-02-28", "tomorrow": "2026-03-02", "2024-02-29": "2024-02-29"} {
		got, ok := ParseDay(in, now)
		if !ok || got.Format("2006-01-02") != want {
			t.Errorf("ParseDay(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "Today's note", "2026-13-01", "2026-1-1", "Garden"} {
		if _, ok := ParseDay(in, now); ok {
			t.Errorf("ParseDay(%q) accepted", in)
		}
	}
}

func TestDaily(t *testing.T) {
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 12, 1, 14, 3, 0, 0, time.UTC)
	tests := []struct {
		name     string
		files    map[string]string
		path     string
		exists   bool
		template string
		code     string
	}{
		{"defaults", nil, "Daily/2026-12-01.md", false, "", ""},
		{"exists", map[string]string{"Daily/2026-12-01.md": "x"}, "Daily/2026-12-01.md", true, "", ""},
		{"settings", map[string]string{
			".obsidian/daily-notes.json": `{"folder":"Journal/","format":"YYYY/MM/YYYY-MM-DD dddd","template":"Templates/Day"}`,
			"Templates/Day.md":           "# {{title}}\ncreated {{date:dddd D MMMM}} at {{time}}\n{{unknown}}\n## Tasks\n",
		}, "Journal/2026/12/2026-12-01 Tuesday.md", false, "# 2026-12-01 Tuesday\ncreated Tuesday 1 December at 14:03\n{{unknown}}\n## Tasks\n", ""},
		{"root folder", map[string]string{".obsidian/daily-notes.json": `{}`}, "2026-12-01.md", false, "", ""},
		{"template missing", map[string]string{".obsidian/daily-notes.json": `{"template":"Nope"}`}, "2026-12-01.md", false, "", ""},
		{"bad json", map[string]string{".obsidian/daily-notes.json": `{folder`}, "Daily/2026-12-01.md", false, "", ""},
		{"unusable format", map[string]string{".obsidian/daily-notes.json": `{"format":"../YYYY"}`}, "", false, "", CodeInvalidPath},
		// The Periodic Notes plugin's daily settings win over the core
		// plugin's, as Obsidian's plugins read them, when the plugin is on
		// and its daily notes are enabled.
		{"periodic notes", map[string]string{
			".obsidian/community-plugins.json":           `["calendar","periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": periodic(true),
			".obsidian/daily-notes.json":                 `{"folder":"Core","template":"Templates/Core"}`,
			"Templates/Periodic.md":                      "# {{date:dddd}}\n",
			"Templates/Core.md":                          "core\n",
		}, "Journal/2026/2026-12-01.md", false, "# Tuesday\n", ""},
		{"periodic notes alone", map[string]string{
			".obsidian/community-plugins.json":           `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"daily":{"enabled":true}}`,
		}, "2026-12-01.md", false, "", ""},
		{"periodic daily off", map[string]string{
			".obsidian/community-plugins.json":           `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": periodic(false),
			".obsidian/daily-notes.json":                 `{"folder":"Core"}`,
		}, "Core/2026-12-01.md", false, "", ""},
		{"periodic plugin off", map[string]string{
			".obsidian/community-plugins.json":           `["calendar"]`,
			".obsidian/plugins/periodic-notes/data.json": periodic(true),
		}, "Daily/2026-12-01.md", false, "", ""},
		{"periodic notes 1.0", map[string]string{
			".obsidian/community-plugins.json": `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"activeCalendarSet":"work","calendarSets":[` +
				`{"id":"default","day":{"enabled":true,"format":"YYYY-MM-DD","folder":"Home"}},` +
				`{"id":"work","day":{"enabled":true,"format":"YYYY/MM-DD","folder":"Work/","templatePath":"Templates/Periodic.md"}}]}`,
			".obsidian/daily-notes.json": `{"folder":"Core"}`,
			"Templates/Periodic.md":      "# {{date:dddd}}\n",
		}, "Work/2026/12-01.md", false, "# Tuesday\n", ""},
		// Periodic Notes 1.0 keeps the 0.x settings it migrated from beside
		// its calendar sets, and reads only the sets.
		{"periodic notes 1.0 migrated", map[string]string{
			".obsidian/community-plugins.json": `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"hasMigratedDailyNoteSettings":true,` +
				`"daily":{"enabled":true,"format":"YYYY-MM-DD","folder":"Old","template":""},` +
				`"activeCalendarSet":"default","calendarSets":[{"id":"default","day":{"enabled":true,"format":"YYYY-MM-DD","folder":"New"}}]}`,
		}, "New/2026-12-01.md", false, "", ""},
		{"periodic notes 1.0 migrated, daily off", map[string]string{
			".obsidian/community-plugins.json": `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"daily":{"enabled":true,"folder":"Old"},` +
				`"activeCalendarSet":"default","calendarSets":[{"id":"default","day":{"enabled":false,"folder":"New"}}]}`,
			".obsidian/daily-notes.json": `{"folder":"Core"}`,
		}, "Core/2026-12-01.md", false, "", ""},
		{"periodic notes 1.0 daily off", map[string]string{
			".obsidian/community-plugins.json":           `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"activeCalendarSet":"a","calendarSets":[{"id":"a","day":{"enabled":false,"folder":"Home"}}]}`,
			".obsidian/daily-notes.json":                 `{"folder":"Core"}`,
		}, "Core/2026-12-01.md", false, "", ""},
		{"periodic bad json", map[string]string{
			".obsidian/community-plugins.json":           `["periodic-notes"]`,
			".obsidian/plugins/periodic-notes/data.json": `{"daily":`,
			".obsidian/daily-notes.json":                 `{"folder":"Core"}`,
		}, "Core/2026-12-01.md", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := newTestVault(t, tt.files, func(o *Options) { o.Now = func() time.Time { return now } })
			d, err := v.Daily(ctx, day)
			wantCode(t, err, tt.code)
			if err == nil && (d.Path != tt.path || d.Exists != tt.exists || d.Template != tt.template) {
				t.Errorf("Daily = %+v", d)
			}
		})
	}
}

// periodic is the Periodic Notes plugin's data.json with its daily notes
// on or off.
func periodic(enabled bool) string {
	return fmt.Sprintf(`{"showGettingStartedBanner":false,"hasMigratedDailyNoteSettings":true,`+
		`"daily":{"format":"YYYY/YYYY-MM-DD","template":"Templates/Periodic","folder":"Journal/","enabled":%v},`+
		`"weekly":{"format":"gggg-[W]ww","template":"","folder":"","enabled":false}}`, enabled)
}
