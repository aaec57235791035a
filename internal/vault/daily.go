package vault

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Daily notes: "add this to today's note" is the most common thing people
// ask an assistant with a notes connection, so the tools take a daily note
// by its day. Where it lives comes from the owner's Obsidian settings,
// which the vault reads (tools can neither read nor write .obsidian/).

// Where Obsidian keeps the daily-notes settings: the core plugin's file,
// and the Periodic Notes plugin's, whose daily settings win when the plugin
// is on (listed in community-plugins.json) and its daily notes are enabled,
// as the plugins that create daily notes decide.
const (
	dailySettings    = ".obsidian/daily-notes.json"
	periodicSettings = ".obsidian/plugins/periodic-notes/data.json"
	communityPlugins = ".obsidian/community-plugins.json"
)

// Defaults when the vault has no daily-notes settings: Daily/YYYY-MM-DD.md.
const (
	defaultDailyFolder = "Daily"
	defaultDailyFormat = "YYYY-MM-DD"
)

// maxSettingsSize bounds the settings file read.
const maxSettingsSize = 64 << 10

// DailyNote is where the daily note of one day lives.
type DailyNote struct {
	Path   string
	Day    time.Time
	Exists bool
	// Template is the text a new daily note starts with: the settings'
	// template note with {{date}}, {{time}} and {{title}} filled in, or "".
	Template string
}

// ParseDay reads a day as people name it: "today", "yesterday",
// "tomorrow" or YYYY-MM-DD. ok is false for anything else.
func ParseDay(s string, now time.Time) (time.Time, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	switch s {
	case "today":
		return today, true
	case "yesterday":
		return today.AddDate(0, 0, -1), true
	case "tomorrow":
		return today.AddDate(0, 0, 1), true
	}
	t, err := time.ParseInLocation("2006-01-02", s, now.Location())
	return t, err == nil
}

// Daily finds the daily note of day from the vault's Obsidian settings
// (folder, date format, template), Daily/YYYY-MM-DD.md without them.
func (v *Vault) Daily(ctx context.Context, day time.Time) (DailyNote, error) {
	if e := ctxErr(ctx); e != nil {
		return DailyNote{}, e
	}
	set := v.dailySettings()
	if strings.TrimSpace(set.Format) == "" {
		set.Format = defaultDailyFormat
	}
	name := MomentFormat(day, strings.TrimSpace(set.Format))
	p := strings.Trim(path.Join(strings.Trim(set.Folder, "/"), name), "/") + ".md"
	if e := v.checkCreatable(p); e != nil {
		return DailyNote{}, fail(&Error{Code: CodeInvalidPath, Reason: ReasonDailyPath, Subject: clipRunes(p, 200), Why: e})
	}
	// A daily note the app may not see is refused before anything about it
	// is looked at: not read, not created.
	if a := accessOf(ctx); !v.pathVisible(a, p) {
		return DailyNote{}, fail(&Error{Code: CodeOutsideScope, Reason: ReasonDaily, Subject: a.s.Describe()})
	}
	out := DailyNote{Path: p, Day: day}
	// A daily note the app may not see (private by its frontmatter) is
	// not there yet for it, as a missing one is; creating it then answers
	// as creating over any hidden note does.
	if fi, err := v.root.Lstat(p); err == nil && (!fi.Mode().IsRegular() || v.visibleNote(accessOf(ctx), p)) {
		out.Exists = true
		return out, nil
	}
	if t := strings.TrimSpace(set.Template); t != "" {
		if !hasNoteExt(t) {
			t += ".md"
		}
		t = strings.TrimPrefix(t, "/")
		if checkPath(t) == nil && !v.isProtected(t) && v.pathVisible(accessOf(ctx), t) {
			// A template private to the app is not used: the app could not
			// see it, nor the daily note that copied its private: true.
			if data, fi, e := v.readNoteFile(t); e == nil && v.checkContent(ctx, t, nil, string(data), fi) == nil {
				out.Template = fillTemplate(string(data), day, v.now(), strings.TrimSuffix(path.Base(p), ".md"))
			} else if e != nil {
				v.log.Warn("vault: daily-note template not read", "err", e)
			}
		}
	}
	return out, nil
}

// dailyConfig is the daily-notes settings both plugins write.
type dailyConfig struct {
	Folder   string `json:"folder"`
	Format   string `json:"format"`
	Template string `json:"template"`
}

// dailySettings reads the daily-notes settings: Periodic Notes' when it
// is in charge, else the core plugin's, else Daily/ and the default format.
func (v *Vault) dailySettings() dailyConfig {
	type periodicDaily struct {
		dailyConfig
		TemplatePath string `json:"templatePath"` // Periodic Notes 1.0
		Enabled      bool   `json:"enabled"`
	}
	var plugins []string
	var periodic struct {
		Daily *periodicDaily `json:"daily"`
		// Periodic Notes 1.0 keeps the settings in calendar sets, one of
		// them active.
		Active string `json:"activeCalendarSet"`
		Sets   []struct {
			ID  string         `json:"id"`
			Day *periodicDaily `json:"day"`
		} `json:"calendarSets"`
	}
	if v.readSettings(communityPlugins, &plugins) && slices.Contains(plugins, "periodic-notes") &&
		v.readSettings(periodicSettings, &periodic) {
		// 1.0 keeps the 0.x settings it migrated from beside its calendar
		// sets, and reads only the sets once there are any.
		d := periodic.Daily
		if len(periodic.Sets) > 0 {
			d = nil
			for _, set := range periodic.Sets {
				if d == nil && set.ID == periodic.Active {
					d = set.Day
				}
			}
		}
		if d != nil && d.Enabled {
			if d.Template == "" {
				d.Template = d.TemplatePath
			}
			return d.dailyConfig
		}
	}
	var core dailyConfig
	if v.readSettings(dailySettings, &core) {
		return core
	}
	return dailyConfig{Folder: defaultDailyFolder}
}

// readSettings decodes an Obsidian settings file into out; false when it
// is missing, too large or not valid JSON (which is logged).
func (v *Vault) readSettings(p string, out any) bool {
	data, _, e := v.readNoteFile(p)
	if e != nil || len(data) > maxSettingsSize {
		return false
	}
	if err := json.Unmarshal(data, out); err != nil {
		v.log.Warn("vault: Obsidian settings are not valid JSON; not using them", "file", p, "err", err)
		return false
	}
	return true
}

// fillTemplate fills Obsidian's core template variables: {{title}},
// {{date}}, {{time}} and {{date:FORMAT}} / {{time:FORMAT}}.
func fillTemplate(t string, day, now time.Time, title string) string {
	var b strings.Builder
	for {
		i := strings.Index(t, "{{")
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		j := strings.Index(t[i:], "}}")
		if j < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		name, format, _ := strings.Cut(strings.TrimSpace(t[i+2:i+j]), ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "title":
			b.WriteString(title)
		case "date":
			b.WriteString(MomentFormat(day, orDefault(format, "YYYY-MM-DD")))
		case "time":
			b.WriteString(MomentFormat(now, orDefault(format, "HH:mm")))
		default:
			b.WriteString(t[i : i+j+2])
		}
		t = t[i+j+2:]
	}
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

// momentTokens are the Moment.js format tokens MomentFormat knows, longest
// first so that "MMMM" is not read as "MM" twice.
var momentTokens = []string{"YYYY", "GGGG", "gggg", "MMMM", "dddd", "MMM", "ddd", "Do", "YY", "MM", "DD", "dd", "WW", "ww", "HH", "hh", "mm", "ss", "M", "D", "d", "E", "W", "w", "H", "h", "m", "s", "A", "a", "Q"}

// MomentFormat formats t with a Moment.js format string, as Obsidian's
// daily-notes setting writes one ("YYYY-MM-DD", "YYYY/MM/dddd D MMMM").
// Text in [brackets] is literal; unknown letters are copied.
func MomentFormat(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				b.WriteString(f[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		tok := ""
		for _, k := range momentTokens {
			if strings.HasPrefix(f[i:], k) {
				tok = k
				break
			}
		}
		if tok == "" {
			b.WriteByte(f[i])
			i++
			continue
		}
		b.WriteString(momentToken(t, tok))
		i += len(tok)
	}
	return b.String()
}

func momentToken(t time.Time, tok string) string {
	isoYear, isoWeek := t.ISOWeek()
	two := func(n int) string { return fmt.Sprintf("%02d", n) }
	switch tok {
	case "YYYY":
		return strconv.Itoa(t.Year())
	case "GGGG", "gggg":
		return strconv.Itoa(isoYear)
	case "YY":
		return two(t.Year() % 100)
	case "MMMM":
		return t.Month().String()
	case "MMM":
		return t.Month().String()[:3]
	case "MM":
		return two(int(t.Month()))
	case "M":
		return strconv.Itoa(int(t.Month()))
	case "DD":
		return two(t.Day())
	case "D":
		return strconv.Itoa(t.Day())
	case "Do":
		return ordinal(t.Day())
	case "dddd":
		return t.Weekday().String()
	case "ddd":
		return t.Weekday().String()[:3]
	case "dd":
		return t.Weekday().String()[:2]
	case "d":
		return strconv.Itoa(int(t.Weekday()))
	case "E":
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1)
	case "WW", "ww":
		return two(isoWeek)
	case "W", "w":
		return strconv.Itoa(isoWeek)
	case "HH":
		return two(t.Hour())
	case "H":
		return strconv.Itoa(t.Hour())
	case "hh":
		return two((t.Hour()+11)%12 + 1)
	case "h":
		return strconv.Itoa((t.Hour()+11)%12 + 1)
	case "mm":
		return two(t.Minute())
	case "m":
		return strconv.Itoa(t.Minute())
	case "ss":
		return two(t.Second())
	case "s":
		return strconv.Itoa(t.Second())
	case "A":
		return t.Format("PM")
	case "a":
		return t.Format("pm")
	case "Q":
		return strconv.Itoa((int(t.Month())-1)/3 + 1)
	}
	return tok
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
