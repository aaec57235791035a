package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode"

	"github.com/cortex-mcp/cortex/internal/store"
)

// errUnknownClient means no client has this id (or its document could not
// be had).
var errUnknownClient = errors.New("unknown client")

// maxNameRunes bounds a client's display name.
const maxNameRunes = 64

// SanitizeName makes a client-supplied name safe to show and to journal:
// no control or formatting characters (bidi overrides included), spaces
// collapsed, at most 64 characters. An empty result becomes fallback.
func SanitizeName(name, fallback string) string {
	var b strings.Builder
	n := 0
	space := false
	for _, r := range name {
		if n >= maxNameRunes {
			break
		}
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar || !unicode.IsPrint(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// AppName is how the journal and `recent` name an OAuth client: its name
// with its id, e.g. "claude.ai (https://claude.ai/oauth/mcp-oauth-client-metadata)".
func AppName(name, clientID string) string {
	return SanitizeName(name, "unnamed app") + " (" + clientID + ")"
}

// isDocumentID reports whether a client_id is a metadata document URL.
func isDocumentID(id string) bool { return strings.HasPrefix(id, "https://") }

// client returns the client with this id: from the database, or for an
// https client_id from its metadata document. src pays for fetches.
func (s *Server) client(ctx context.Context, id string, src netip.Prefix) (store.OAuthClient, error) {
	if id == "" || len(id) > maxRedirectURI {
		return store.OAuthClient{}, errUnknownClient
	}
	if isDocumentID(id) {
		return s.documentClient(ctx, id, src)
	}
	c, err := s.st.OAuthClient(ctx, id)
	if errors.Is(err, store.ErrClientNotFound) {
		return store.OAuthClient{}, errUnknownClient
	}
	return c, err
}

// documentClient resolves a client by its metadata document: the memory
// cache or the stored copy while fresh, else a fetch paid by src. When the
// fetch fails, an approved client's stored copy serves up to DocStale.
func (s *Server) documentClient(ctx context.Context, id string, src netip.Prefix) (store.OAuthClient, error) {
	now := s.now()
	if c, ok := s.cimd.Get(id); ok && now.Sub(c.Fetched) < s.lim.DocTTL {
		return c, nil
	}
	stored, err := s.st.OAuthClient(ctx, id)
	haveStored := err == nil && stored.Kind == store.ClientCIMD
	if err != nil && !errors.Is(err, store.ErrClientNotFound) {
		return store.OAuthClient{}, err
	}
	if haveStored && now.Sub(stored.Fetched) < s.lim.DocTTL && !now.Before(stored.Fetched) {
		s.cimd.Put(stored.ID, stored)
		return stored, nil
	}
	stale := func(cause error) (store.OAuthClient, error) {
		if haveStored && now.Sub(stored.Fetched) < s.lim.DocStale {
			s.log.Warn("client metadata document unavailable; using the stored copy", "client", id, "err", cause)
			return stored, nil
		}
		return store.OAuthClient{}, fmt.Errorf("%w: %v", errUnknownClient, cause)
	}
	if ok, _ := s.fetches.Take(src); !ok {
		return stale(errors.New("metadata fetch budget spent"))
	}
	body, err := s.fetch.get(ctx, id)
	if err != nil {
		return stale(err)
	}
	c, err := s.parseDocument(id, body)
	if err != nil {
		return stale(err)
	}
	c.Fetched = now
	if haveStored {
		c.Granted, c.LastUsed, c.Created = stored.Granted, stored.LastUsed, stored.Created
		if err := s.st.PutCIMDClient(ctx, c); err != nil {
			return store.OAuthClient{}, err
		}
	}
	s.cimd.Put(c.ID, c)
	return c, nil
}

// document is the part of a client ID metadata document cortex reads.
type document struct {
	ClientID     string          `json:"client_id"`
	ClientName   string          `json:"client_name"`
	RedirectURIs []string        `json:"redirect_uris"`
	AuthMethod   string          `json:"token_endpoint_auth_method"`
	JWKSURI      string          `json:"jwks_uri"`
	JWKS         json.RawMessage `json:"jwks"`
	GrantTypes   []string        `json:"grant_types"`
}

// parseDocument checks a fetched metadata document: a JSON object whose
// client_id is the URL it came from, a public or private_key_jwt client,
// and at least one redirect URI on the allowlist (the others are dropped).
func (s *Server) parseDocument(id string, body []byte) (store.OAuthClient, error) {
	var d document
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&d); err != nil {
		return store.OAuthClient{}, fmt.Errorf("metadata document is not a JSON object: %w", err)
	}
	if d.ClientID != id {
		return store.OAuthClient{}, errors.New("metadata document's client_id is not its own URL")
	}
	c := store.OAuthClient{ID: id, Kind: store.ClientCIMD, AuthMethod: d.AuthMethod}
	switch d.AuthMethod {
	case "", "none":
		c.AuthMethod = "none"
	case "private_key_jwt":
		if d.JWKSURI == "" && len(d.JWKS) == 0 {
			return store.OAuthClient{}, errors.New("private_key_jwt client declares no keys")
		}
		if d.JWKSURI != "" {
			if _, err := checkFetchURL(d.JWKSURI); err != nil {
				return store.OAuthClient{}, fmt.Errorf("jwks_uri: %w", err)
			}
			c.JWKSURI = d.JWKSURI
		} else {
			if _, err := parseJWKS(d.JWKS); err != nil {
				return store.OAuthClient{}, err
			}
			c.JWKS = string(d.JWKS)
		}
	default:
		return store.OAuthClient{}, fmt.Errorf("token_endpoint_auth_method %q cannot be used by a metadata document client", d.AuthMethod)
	}
	for _, u := range d.RedirectURIs {
		if len(c.RedirectURIs) < maxRedirects && s.allow.permits(u) {
			c.RedirectURIs = append(c.RedirectURIs, u)
		}
	}
	if len(c.RedirectURIs) == 0 {
		return store.OAuthClient{}, errors.New("none of the document's redirect URIs is on the allowlist")
	}
	host := id
	if u, err := url.Parse(id); err == nil {
		host = u.Host
	}
	c.Name = SanitizeName(d.ClientName, host)
	return c, nil
}

// maxRedirects bounds the redirect URIs one client may hold.
const maxRedirects = 10
