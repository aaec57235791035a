package httpx

import (
	"compress/gzip"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MinCompress is the smallest answer Compress compresses: below it gzip's
// own header and the CPU cost outweigh the bytes saved.
const MinCompress = 1024

// compressible are the media types Compress compresses: the pages, their
// styles and scripts. Everything else is either compressed already
// (images, archives), small, or a stream (/mcp's JSON and server-sent
// events) that must reach the client as it is written.
var compressible = map[string]bool{"text/html": true, "text/css": true, "text/javascript": true, "text/plain": true}

var gzipWriters = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}

// Compress gzips the pages a browser asks for compressed (Accept-Encoding),
// when they are of a compressible type and at least MinCompress bytes.
//
// BREACH: a compressed answer's length tells an eavesdropper on the TLS
// connection whether text the attacker put in the page (a query string the
// page echoes, such as Activity's note filter) matches a secret on the same
// page (the CSRF token every console page carries; a new token's value on
// the page that shows it). The attack needs the victim's browser to send
// many requests the attacker chose, with the victim's cookies; a site
// other than this one can only start them (links, forms, window.open), and
// the browser then says so in Sec-Fetch-Site. So only answers to requests
// the browser marks as this origin's own ("same-origin") or the person's
// own ("none": typed, bookmarked, reloaded) are compressed; a request that
// another site started, or that comes without the header (old browsers,
// scripts), gets the page uncompressed. The pages that show a secret once
// (a new token) show a fresh random value each time, which a length oracle
// cannot narrow down over many requests either.
func Compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		// The answer depends on both headers even when it ends up plain.
		w.Header().Add("Vary", "Accept-Encoding")
		if site := r.Header.Get("Sec-Fetch-Site"); site != "same-origin" && site != "none" {
			next.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{ResponseWriter: w}
		next.ServeHTTP(cw, r)
		cw.finish()
	})
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip (with
// a q-value above 0, as "gzip", "x-gzip" or "*").
func acceptsGzip(v string) bool {
	for part := range strings.SplitSeq(v, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := 1.0
		if k, val, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(k) == "q" {
			if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				q = f
			}
		}
		if q > 0 {
			return true
		}
	}
	return false
}

// compressWriter holds back the header and the first bytes of an answer
// until it knows whether to compress it: the type and encoding are set,
// and either a Content-Length or MinCompress bytes say how large it is.
type compressWriter struct {
	http.ResponseWriter
	status  int
	decided bool
	gz      *gzip.Writer // nil: passing through
	buf     []byte       // bytes held back while undecided
}

func (c *compressWriter) WriteHeader(status int) {
	if status < 200 { // 1xx: informational, sent as it comes
		c.ResponseWriter.WriteHeader(status)
		return
	}
	if c.status == 0 {
		c.status = status
	}
}

func (c *compressWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	if !c.decided {
		if !c.worth() {
			c.decide(false)
		} else if n := c.ResponseWriter.Header().Get("Content-Length"); n != "" {
			size, _ := strconv.Atoi(n)
			c.decide(size >= MinCompress)
		} else if len(c.buf)+len(p) < MinCompress {
			c.buf = append(c.buf, p...)
			return len(p), nil
		} else {
			c.decide(true)
		}
	}
	if c.gz != nil {
		return c.gz.Write(p)
	}
	return c.ResponseWriter.Write(p)
}

// worth reports whether the answer, as its header says so far, is of a
// kind to compress.
func (c *compressWriter) worth() bool {
	h := c.ResponseWriter.Header()
	if h.Get("Content-Encoding") != "" || c.status == http.StatusNoContent || c.status == http.StatusNotModified ||
		c.status == http.StatusPartialContent {
		return false
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && compressible[mt]
}

// decide sends the header, compressed or not, and what was held back.
func (c *compressWriter) decide(compress bool) {
	c.decided = true
	h := c.ResponseWriter.Header()
	if compress {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		c.gz = gzipWriters.Get().(*gzip.Writer)
		c.gz.Reset(c.ResponseWriter)
	}
	c.ResponseWriter.WriteHeader(c.status)
	if len(c.buf) > 0 {
		if c.gz != nil {
			c.gz.Write(c.buf)
		} else {
			c.ResponseWriter.Write(c.buf)
		}
		c.buf = nil
	}
}

// finish ends the answer after the handler returned: an answer still held
// back is small (or empty) and goes out plain.
func (c *compressWriter) finish() {
	if !c.decided {
		if c.status == 0 {
			return // nothing written: net/http sends its own 200
		}
		c.decide(false)
	}
	if c.gz != nil {
		c.gz.Close()
		c.gz.Reset(nil)
		gzipWriters.Put(c.gz)
		c.gz = nil
	}
}

// Flush sends what was written so far: a stream is decided on the spot.
func (c *compressWriter) Flush() {
	if !c.decided {
		if c.status == 0 {
			c.status = http.StatusOK
		}
		c.decide(c.worth() && len(c.buf) >= MinCompress)
	}
	if c.gz != nil {
		c.gz.Flush()
	}
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *compressWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
