package httpx

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"
)

// record collects, during a request, what its log line says beyond method,
// path, status and duration.
type record struct {
	render Renderer // the route's format, for a panic's 500
	app    string   // who made the request, once known
	code   string   // the error code answered, if any
	err    error    // detail behind it, for the log only
}

type recordKey struct{}

func recordOf(r *http.Request) *record {
	rec, _ := r.Context().Value(recordKey{}).(*record)
	return rec
}

// SetApp names, on r's log line, the app that made r.
func SetApp(r *http.Request, app string) {
	if rec := recordOf(r); rec != nil {
		rec.app = app
	}
}

// SetRenderer declares the format of r's route, in which a panic's 500 is
// then written.
func SetRenderer(r *http.Request, render Renderer) {
	if rec := recordOf(r); rec != nil {
		rec.render = render
	}
}

// LogRequests logs one line per request: method, path, final status and
// duration, plus the app and the error code and detail when there are any
// (WriteError puts them there). Never headers, queries or bodies.
func LogRequests(logger *slog.Logger, now func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := now()
			rec := new(record)
			sw := &statusWriter{ResponseWriter: w}
			// Deferred, so that a request aborted by http.ErrAbortHandler
			// (Recover's answer to a panic after the response started) has
			// its line too.
			defer func() {
				v := recover()
				logRequest(logger, r, sw, rec, now().Sub(start), v != nil)
				if v != nil {
					panic(v)
				}
			}()
			next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), recordKey{}, rec)))
		})
	}
}

// logRequest writes the line of one request.
func logRequest(logger *slog.Logger, r *http.Request, sw *statusWriter, rec *record, d time.Duration, aborted bool) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Duration("duration", d),
	}
	if aborted {
		attrs = append(attrs, slog.Bool("aborted", true))
	}
	if rec.app != "" {
		attrs = append(attrs, slog.String("app", rec.app))
	}
	if rec.code != "" {
		attrs = append(attrs, slog.String("code", rec.code))
	}
	if rec.err != nil {
		attrs = append(attrs, slog.String("error", rec.err.Error()))
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	logger.LogAttrs(r.Context(), level, "request", attrs...)
}

// Recover turns a panic into a 500 that tells the client nothing and the
// log everything, written in the route's format (SetRenderer) or else with
// render; after the response has started, the response is aborted instead
// (the connection closes mid-answer). http.ErrAbortHandler keeps its
// meaning: abort quietly. It runs
// inside LogRequests.
func Recover(logger *slog.Logger, render Renderer) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path,
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
					// The response has started: nothing sane can follow, and
					// ending it normally would pass a cut answer off as whole
					// (a chunked body gets its last chunk). Aborting closes
					// the connection, so the client sees the break.
					panic(http.ErrAbortHandler)
				}
				format := render
				if rec := recordOf(r); rec != nil && rec.render != nil {
					format = rec.render
				}
				WriteError(w, r, fmt.Errorf("panic: %v", v), format)
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// statusWriter remembers the status of a response. It implements Flush and
// Unwrap so that streamed (SSE) responses keep working through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
