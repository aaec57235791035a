package console

import (
	"context"
	"html"
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortex-mcp/cortex/internal/owner"
)

// The console shows times in the owner's time zone, a setting on the
// Status page kept in the store (UTC until set). Every time it shows is a
// <time> element whose datetime and title (shown on hover) are UTC, so the
// exact moment stays one hover away whatever the zone; the times the
// owner types (the "since" of the activity filter, of a bulk undo, of
// forgetting an app's versions) are read in the same zone.

// zone is the console's time zone. A kept name that no longer loads (the
// time zone database changed) shows times in UTC, and the log says so.
func (c *Console) zone(ctx context.Context) *time.Location {
	name, err := c.o.Store.TimeZone(ctx)
	if err != nil {
		c.log.Error("time zone", "err", err)
		return time.UTC
	}
	loc, problem := parseZone(name)
	if problem != "" {
		c.log.Error("the console's time zone does not load; times are shown in UTC", "zone", name)
		return time.UTC
	}
	return loc
}

// zoneHint is the end of every refusal of a time zone name.
const zoneHint = "Give an IANA time zone name, such as Europe/Paris, America/New_York or Asia/Kolkata (capitals as shown), or UTC."

// parseZone checks name against the time zone database; problem, when
// not "", is the sentence the owner sees instead.
func parseZone(name string) (loc *time.Location, problem string) {
	switch {
	case name == "":
		return nil, "The time zone is empty. " + zoneHint
	case strings.EqualFold(name, "UTC"):
		return time.UTC, ""
	case len(name) > 64 || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return nil, "That is not a time zone name. " + zoneHint
	case name == "Local":
		// The server's own zone is no zone the owner can know.
		return nil, "Local is the server's zone, not one of the names. " + zoneHint
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "cortex does not know the time zone " + name + ". " + zoneHint
	}
	return loc, ""
}

// zoneForm is the time zone form of the Status page as the owner sent it.
type zoneForm struct {
	Value, Error, Code string
}

// setTimeZone makes the zone the owner typed the console's. It needs no
// recent sign-in: it changes how times are shown, not a note, an app's
// access or a secret, and every time still shows UTC on hover.
func (c *Console) setTimeZone(w http.ResponseWriter, r *http.Request, s owner.SessionInfo) (*outcome, error) {
	name := strings.TrimSpace(r.PostFormValue("zone"))
	loc, problem := parseZone(name)
	if problem != "" {
		d, err := c.statusData(w, r, s)
		if err != nil {
			return nil, err
		}
		d.ZoneForm = zoneForm{Value: name, Error: problem, Code: "bad_time_zone"}
		c.pages.Render(w, http.StatusBadRequest, "status.html", d)
		return nil, nil
	}
	if err := c.o.Store.SetTimeZone(r.Context(), loc.String()); err != nil {
		return nil, err
	}
	c.log.Info("owner set the console's time zone", "zone", loc.String())
	return &outcome{Nav: "status", Title: "Time zone set",
		Message: "The console now shows times in " + loc.String() + " (" + c.now().In(loc).Format("MST, UTC-07:00") +
			" now); pointing at a time shows it in UTC.",
		Link: "/console/status", LinkText: "Back to the status"}, nil
}

// timeFuncs show a time in the console's zone: {{when $.Zone .Time}} to
// the minute, whenSecs to the second.
var timeFuncs = template.FuncMap{
	"when": func(loc *time.Location, t time.Time) template.HTML { return timeHTML(loc, t, "2006-01-02 15:04 MST") },
	"whenSecs": func(loc *time.Location, t time.Time) template.HTML {
		return timeHTML(loc, t, "2006-01-02 15:04:05 MST")
	},
}

// timeHTML is t as a <time> element: shown in loc (UTC when nil) with
// layout, and in UTC in its datetime and title.
func timeHTML(loc *time.Location, t time.Time, layout string) template.HTML {
	if loc == nil {
		loc = time.UTC
	}
	u := t.UTC()
	s := `<time datetime="` + u.Format("2006-01-02T15:04:05Z") + `" title="` + u.Format("2006-01-02 15:04:05") + ` UTC">` +
		html.EscapeString(t.In(loc).Format(layout)) + `</time>`
	return template.HTML(s) // #nosec G203 -- digits, and the zone's abbreviation escaped
}
