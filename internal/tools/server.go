// Package tools defines cortex's twelve MCP tools: their input and output
// types, descriptions, annotations, and the mapping of vault errors to tool
// results a model can act on. It builds the *mcp.Server that /mcp serves.
//
// It owns no I/O of its own: notes are reached only through internal/vault,
// write attempts are recorded through the Journal interface, and the notes
// each app was shown through a ReadRecorder. It must never return a stack
// trace, a host path or a Go error string to a client, and never log note
// contents.
package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/render"
	"github.com/cortex-mcp/cortex/internal/store"
	"github.com/cortex-mcp/cortex/internal/vault"
	"github.com/cortex-mcp/cortex/internal/vault/scope"
)

// Journal records write attempts and tells who last wrote a note. It is
// satisfied by *store.Store.
type Journal interface {
	RecordWrite(ctx context.Context, e store.JournalEntry) error
	// LastWrites returns the latest successful entry for each path that has
	// one.
	LastWrites(ctx context.Context, paths []string) (map[string]store.JournalEntry, error)
}

// Deps are what the tools need. Vault is required; a nil Journal means
// writes are not journaled and every writer shows as "external".
type Deps struct {
	Vault   *vault.Vault
	Journal Journal
	// PublicURL is the server's external origin; note URLs are built on it.
	// The zero value builds no note URLs.
	PublicURL config.PublicURL
	Logger    *slog.Logger
	Now       func() time.Time
	// Version is the server version reported in the MCP handshake.
	Version string
	// App names the writer when a request carries no token information.
	App string
	// Reads records the notes the read tools show each app; nil records
	// nothing.
	Reads *ReadRecorder
	// History lets fetch read earlier versions and recent list them; nil
	// answers that no history is kept.
	History History
}

// externalWriter is the changed_by / last_writer value for changes that
// cortex did not journal (an editor, a sync tool, a script).
const externalWriter = "external"

// server holds one session's dependencies, with defaults filled in.
type server struct {
	vault   *vault.Vault
	journal Journal
	reads   *ReadRecorder
	history History
	baseURL string
	log     *slog.Logger
	now     func() time.Time
	app     string
	names   []string        // the model's tools' names, in the order they are added
	writes  map[string]bool // the model's tools not annotated read-only
	// appOnly are the tools only an MCP App's view may call (visibility
	// ["app"]): listed only to clients that offered the UI extension.
	appOnly   map[string]bool
	appWrites map[string]bool // the app-only tools that write
	// uiOutput are the output schemas, encoded, that a client which
	// offered the UI extension is shown: with the view's data.
	uiOutput map[string]json.RawMessage
	ui       *uiClients
	// quick are the handlers of the model's read-only tools, by name, for
	// Servers.Quick.
	quick map[string]mcp.ToolHandler
	// serverInfo is the middleware naming the server in every answer
	// of 2026-07-28 and later.
	serverInfo mcp.Middleware
}

// NewServer builds an MCP server. instructions is the content of the
// vault's instructions file; "" sends none. Servers keeps one per content.
func NewServer(d Deps, instructions string) *mcp.Server {
	return newServer(d, instructions, newUIClients())
}

// newServer is NewServer remembering in ui which credentials' clients
// offered the UI extension.
func newServer(d Deps, instructions string, ui *uiClients) *mcp.Server {
	srv, _ := buildServer(d, instructions, ui)
	return srv
}

// buildServer is newServer, also returning the tools' own side.
func buildServer(d Deps, instructions string, ui *uiClients) (*mcp.Server, *server) {
	s := &server{
		appOnly:   map[string]bool{},
		appWrites: map[string]bool{},
		ui:        ui,
		vault:     d.Vault,
		journal:   d.Journal,
		reads:     d.Reads,
		history:   d.History,
		baseURL:   d.PublicURL.String(),
		log:       d.Logger,
		now:       d.Now,
		app:       d.App,
		writes:    map[string]bool{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.app == "" {
		s.app = "unknown"
	}
	version := d.Version
	if version == "" {
		version = "dev"
	}
	impl := &mcp.Implementation{
		Name:        "cortex",
		Title:       "cortex notes",
		Description: "The owner's folder of Markdown notes: search, read and carefully edit them.",
		Version:     version,
		WebsiteURL:  "https://github.com/cortex-mcp/cortex",
		Icons:       []mcp.Icon{noteIcon},
	}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools, and prompts because the SDK answers prompts/list (with
		// none) whatever is declared, and MCP 2026-07-28 wants what is
		// answered declared in server/discover. No logging; the lists
		// never change.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}},
		SchemaCache:  schemaCache,
		SetCacheable: s.cacheScope,
	})
	s.serverInfo = serverInfoOnce(impl)
	srv.AddReceivingMiddleware(s.schemaErrors, s.serverInfo, s.apps)
	s.addReadTools(srv)
	s.addWriteTools(srv)
	s.addAppTools(srv)
	return srv, s
}

// cacheScope marks server/discover (MCP 2026-07-28) private: it carries the
// instructions, a note of the owner's, which a cache shared between clients
// (a gateway) must not hand to another caller. The tool and prompt lists are
// the same for every app and stay public, the SDK's default, but for a
// client that offered the UI extension, which gets them with its views
// named: that list must not be handed to a client that did not.
func (s *server) cacheScope(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ServerRequest[*mcp.DiscoverParams]:
		c.CacheScope = "private"
	case *mcp.ListToolsRequest:
		if s.uiOffered(req) {
			c.CacheScope = "private"
		}
	}
}

// Servers hands out the MCP server for the instructions of the moment.
// /mcp asks for one on every request (it keeps no sessions); building one
// costs more than a tool call, so the last one is kept and rebuilt only when
// the owner changed the instructions file. It is safe for concurrent use.
type Servers struct {
	deps Deps
	ui   *uiClients

	mu    sync.Mutex
	instr string
	srv   *mcp.Server
	tools *server // srv's tools, for Quick
}

// NewServers returns a Servers building with d.
func NewServers(d Deps) *Servers { return &Servers{deps: d, ui: newUIClients()} }

// For returns the server whose instructions are instructions.
func (s *Servers) For(instructions string) *mcp.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil || s.instr != instructions {
		s.srv, s.tools = buildServer(s.deps, instructions, s.ui)
		s.instr = instructions
	}
	return s.srv
}

// Icons, as data URIs so that showing them fetches nothing: a page for the
// server and the tools that read, a pencil for those that write.
var (
	noteIcon   = svgIcon(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#555" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M6 2h9l5 5v15H6z"/><path d="M14 2v6h6M9 13h8M9 17h6"/></svg>`)
	pencilIcon = svgIcon(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#555" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 20h4L19 9l-4-4L4 16z"/><path d="M13 7l4 4"/></svg>`)
)

func svgIcon(svg string) mcp.Icon {
	return mcp.Icon{Source: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)),
		MIMEType: "image/svg+xml", Sizes: []string{"any"}}
}

// call is what a handler knows about the request besides its arguments.
type call struct {
	tool string
	app  string
	// at is when the call arrived; every journal entry of one call carries
	// it, so that undo finds the entries of a move or delete together.
	at time.Time
}

// handler is a tool body: it returns the typed output or an error, which
// addTool turns into an IsError result with a structured error.
type handler[In, Out any] func(ctx context.Context, c call, in In) (Out, error)

// annotations used by the tools; every tool works on the owner's vault
// only, so none is open-world.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
}

func writes(title string, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: new(destructive), IdempotentHint: idempotent, OpenWorldHint: new(false)}
}

// addTool registers a typed tool. Its output schema is the one inferred
// from Out, widened so that a result may instead be {"error": {...}}, so
// that error results conform too.
//
// It does the SDK's typed-tool work itself, at a fraction of the cost for
// large results: the arguments are checked against the input schema exactly
// as mcp.AddTool does (defaults applied, the same refusal text, which
// schemaErrors rewrites), but the output is encoded once and used both as
// structuredContent and as its text fallback, rather than encoded, decoded
// into maps, validated and encoded again. The output is not validated per
// call: it is produced from Out, the type its schema is inferred from
// (TestOutputsMatchSchemas checks that they agree).
func addTool[In, Out any](s *server, srv *mcp.Server, t *mcp.Tool, h handler[In, Out]) {
	if ui, _ := t.Meta["ui"].(map[string]any); ui != nil && reflect.DeepEqual(ui["visibility"], []string{"app"}) {
		// Not the model's: left out of the names a wrong call is told
		// and of the writers IsWriteTool's set is built from.
		s.appOnly[t.Name] = true
		if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
			s.appWrites[t.Name] = true
		}
		delete(t.Meta, "ui")
	} else {
		s.names = append(s.names, t.Name)
		if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
			s.writes[t.Name] = true
		}
	}
	in := inputOf[In]()
	out := outputSchema[Out]()
	t.InputSchema = encodedSchema(in.schema.Schema())
	t.OutputSchema = encodedSchema(out)
	if uri := s.viewOf(t.Name); uri != "" {
		if s.uiOutput == nil {
			s.uiOutput = map[string]json.RawMessage{}
		}
		s.uiOutput[t.Name] = uiOutputSchema(out, uri)
	}
	if t.Annotations != nil && t.Title == "" {
		t.Title = t.Annotations.Title
	}
	if t.Icons == nil {
		t.Icons = []mcp.Icon{noteIcon}
		if s.writes[t.Name] {
			t.Icons = []mcp.Icon{pencilIcon}
		}
	}
	handle := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if name, bad := notUTF8(req.Params.Arguments); bad {
			e := &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonArgsNotUTF8}
			if name != "" {
				e.Reason, e.Subject = reasonArgNotUTF8, name
			}
			s.recordRefused(ctx, req, e.Code)
			return errorResult(&toolError{Code: e.Code, Message: toolSentence(e)}), nil
		}
		args, err := in.decode(req.Params.Arguments)
		if err != nil {
			// The SDK's own shape, which schemaErrors turns into a tool error.
			res := new(mcp.CallToolResult)
			res.SetError(err)
			return res, nil
		}
		c := call{tool: t.Name, app: s.appFor(req), at: s.now()}
		// Every call sees the vault through the scope the edge gave its
		// credential; a call that arrives without one (a server built
		// without the edge) gets the whole vault without private notes,
		// never the owner's view.
		if _, ok := scope.FromContext(ctx); !ok {
			ctx = scope.NewContext(ctx, scope.Scope{})
		}
		// The note history names the app as the writer of what it changes.
		out, err := h(vault.WithWriter(ctx, c.app), c, args)
		if err != nil {
			return errorResult(s.toolError(c, err)), nil
		}
		if x, ok := any(out).(shower); ok {
			s.reads.Record(c.app, c.tool, x.shown())
		}
		text, err := encode(out)
		if err != nil {
			return nil, fmt.Errorf("marshal %s output: %w", t.Name, err)
		}
		structured := text
		if s.uiOffered(req) {
			// The view's data, for the host's view only: the text the
			// model reads stays what it was.
			structured = s.withView(ctx, c, out, text)
		}
		res := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
			StructuredContent: structured,
		}
		if x, ok := any(out).(withContent); ok {
			res.Content = append(res.Content, x.content()...)
		}
		return res, nil
	}
	srv.AddTool(t, handle)
	if !s.appOnly[t.Name] && !s.writes[t.Name] {
		if s.quick == nil {
			s.quick = map[string]mcp.ToolHandler{}
		}
		s.quick[t.Name] = handle
	}
}

// encoded is a tool's output, encoded as json.Marshal encodes it, and
// kept as a string so that the text block and structuredContent, which
// both carry it, share one copy.
type encoded string

// MarshalJSON is the SDK's way to structuredContent; Quick writes the
// string itself.
func (e encoded) MarshalJSON() ([]byte, error) { return []byte(e), nil }

// encode encodes v as json.Marshal does, into a string made once: the
// encoder's one write of all of it to an empty builder allocates its
// size, and the builder's String is that memory, not a copy.
func encode(v any) (encoded, error) {
	var sb strings.Builder
	if err := json.NewEncoder(&sb).Encode(v); err != nil {
		return "", err
	}
	s := sb.String()
	return encoded(s[:len(s)-1]), nil // without Encode's newline
}

// withContent is an output that brings content beyond its JSON text: an
// image to show, a link to a file.
type withContent interface {
	content() []mcp.Content
}

// errorResult is the result of a failed call.
func errorResult(te *toolError) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: te.text()}},
		StructuredContent: errorOutput{Error: te},
	}
}

// inputs memoises the resolved input schema of each In type, and its fast
// path, like the output schemas: they never change and cost milliseconds
// to build.
var inputs sync.Map // reflect.Type -> *toolInput[In]

func inputOf[In any]() *toolInput[In] {
	rt := reflect.TypeFor[In]()
	if x, ok := inputs.Load(rt); ok {
		return x.(*toolInput[In])
	}
	sch, err := jsonschema.For[In](nil)
	if err != nil {
		// In types are fixed at compile time; every test catches this.
		panic(fmt.Sprintf("tools: input schema: %v", err))
	}
	singleTypes(sch)
	r, err := sch.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("tools: input schema: %v", err))
	}
	got, _ := inputs.LoadOrStore(rt, &toolInput[In]{schema: r, simple: newSimpleArgs[In](r)})
	return got.(*toolInput[In])
}

// decodeArgs checks the arguments against the input schema, with its
// defaults applied, and decodes them: what mcp.AddTool does, with the same
// error text.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var in In
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return in, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
	}
	if m == nil {
		// Arguments of null, which decode to no map: defaults are
		// applied to them as to {}, not into a nil map, which panics.
		m = map[string]any{}
	}
	// Optional means absent, but many clients send null for an argument
	// they leave out: take it as absent.
	for k, x := range m {
		if x == nil {
			delete(m, k)
		}
	}
	var v any = m
	if err := schema.ApplyDefaults(&v); err != nil {
		return in, fmt.Errorf("validating \"arguments\": applying schema defaults:\n%w", err)
	}
	if err := schema.Validate(&v); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "validating root: unexpected additional properties ") {
			// The schema library lists them in map order, so the same call
			// would be told something else each time: list them sorted.
			msg = fmt.Sprintf("validating root: unexpected additional properties %q", extraProperties(m, schema.Schema()))
		}
		return in, fmt.Errorf("validating \"arguments\": %s", msg)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return in, fmt.Errorf("validating \"arguments\": marshalling with defaults: %v", err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, err
	}
	return in, nil
}

// extraProperties lists, sorted, the arguments the schema has no
// property for.
func extraProperties(args map[string]any, s *jsonschema.Schema) []string {
	var extra []string
	for k := range args {
		if _, ok := s.Properties[k]; !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return extra
}

// appFor names the writer: the token's app name when the HTTP layer put
// one in the token info, else its user ID, else the configured fallback.
func (s *server) appFor(req *mcp.CallToolRequest) string {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		ti := req.Extra.TokenInfo
		if name, ok := ti.Extra["app"].(string); ok && name != "" {
			return name
		}
		if ti.UserID != "" {
			return ti.UserID
		}
	}
	return s.app
}

// noteURL is the link to a note in cortex's web view, each path segment
// escaped.
func (s *server) noteURL(p string) string {
	return render.SiteNoteURL(s.baseURL, p)
}

// noteID accepts a note's id, or its URL as returned by search (some
// clients pass that back), and returns the id.
func (s *server) noteID(id string) string {
	prefix := s.baseURL + "/notes/"
	if s.baseURL == "" || !strings.HasPrefix(id, prefix) {
		return id
	}
	p, err := url.PathUnescape(strings.TrimPrefix(id, prefix))
	if err != nil {
		return id
	}
	return p
}

// daily reports whether id names a day (today, yesterday, tomorrow,
// YYYY-MM-DD) and, if so, where that day's daily note is. A date that is
// not where the daily-notes settings put it may still be a note's name.
func (s *server) daily(ctx context.Context, id string) (vault.DailyNote, bool, error) {
	day, ok := vault.ParseDay(id, s.now())
	if !ok {
		return vault.DailyNote{}, false, nil
	}
	d, err := s.vault.Daily(ctx, day)
	if err != nil || d.Exists || !strings.Contains(id, "-") {
		return d, true, err
	}
	if named, err := s.vault.Lookup(ctx, id); err == nil {
		return vault.DailyNote{Path: named.Path, Day: day, Exists: true}, true, nil
	}
	return d, true, nil
}

// noDaily is the answer for a daily note that does not exist yet.
func noDaily(d vault.DailyNote) error {
	return &vault.Error{Code: vault.CodeNotFound, Reason: reasonNoDaily, Subject: d.Day.Format("2006-01-02"), Detail: d.Path}
}

// target finds the note an id names: a day's daily note (today,
// 2026-12-01), its path, its URL as search returns it, or its name as a
// wiki link writes it ("Plan", "Plan#Budget", an alias). A day is the
// daily note for every tool, as for fetch and append, even when a note
// elsewhere has the day's name or a name like "today".
func (s *server) target(ctx context.Context, id string) (vault.Named, error) {
	if strings.TrimSpace(id) == "" {
		return vault.Named{}, &vault.Error{Code: vault.CodeInvalidArgument, Reason: reasonNoID}
	}
	if d, isDay, err := s.daily(ctx, id); err != nil {
		return vault.Named{}, err
	} else if isDay && !d.Exists {
		return vault.Named{}, noDaily(d)
	} else if isDay {
		return vault.Named{Path: d.Path}, nil
	}
	return s.vault.Lookup(ctx, s.noteID(id))
}

// timestamp formats a modification time for output.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// lastWriters maps each path to the app whose journaled write produced the
// given current version, or "external". A failing journal is logged and
// treated as knowing nothing: who wrote a note is not worth failing a read.
func (s *server) lastWriters(ctx context.Context, versions map[string]string) map[string]string {
	out := make(map[string]string, len(versions))
	for p, c := range s.lastChanges(ctx, versions) {
		out[p] = c.writer
	}
	return out
}

// lastChange is who made a note's current version and how.
type lastChange struct{ writer, kind string }

// changeKinds names the kind of change each writing tool makes; the
// owner's restores and undos are restores.
var changeKinds = map[string]string{
	"create_note": "create", "append": "append", "edit_note": "edit", "replace_section": "edit",
	"update_frontmatter": "edit", "move_note": "move", "delete_note": "delete", "restore": "restore", "undo": "restore", undoTool: "restore",
}

// changeKind is the kind of change a journal entry made. A move journals
// the moved note under its old and new paths, with the same text, and each
// note whose links it rewrote with its text changed: that is a relink, not
// a move of that note.
func changeKind(e store.JournalEntry) string {
	if e.Tool == "move_note" && e.OldVersion != "" && e.NewVersion != "" && e.OldVersion != e.NewVersion {
		return "relink"
	}
	return changeKinds[e.Tool]
}

// lastChanges is lastWriters with the kind of each change ("" for an
// outside one).
func (s *server) lastChanges(ctx context.Context, versions map[string]string) map[string]lastChange {
	out := make(map[string]lastChange, len(versions))
	for p := range versions {
		out[p] = lastChange{writer: externalWriter}
	}
	if s.journal == nil || len(versions) == 0 {
		return out
	}
	paths := make([]string, 0, len(versions))
	for p := range versions {
		paths = append(paths, p)
	}
	last, err := s.journal.LastWrites(ctx, paths)
	if err != nil {
		s.log.Warn("journal lookup failed", "err", err, "paths", len(paths))
		return out
	}
	for p, v := range versions {
		if e, ok := last[p]; ok && v != "" && e.NewVersion == v {
			out[p] = lastChange{writer: e.App, kind: changeKind(e)}
		}
	}
	return out
}
