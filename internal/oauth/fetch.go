package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// ErrFetchRefused means a metadata document or key set was not fetched
// because its URL or the address it resolves to is not allowed.
var ErrFetchRefused = errors.New("fetch refused")

// fetcher gets client metadata documents and key sets: https on port 443
// only, to public addresses only (checked after DNS resolution, on every
// connection), no proxy, no redirects, bounded time and size.
type fetcher struct {
	res      Resolver
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	client   *http.Client
	timeout  time.Duration
	maxBytes int64
}

func newFetcher(res Resolver, dial func(context.Context, string, string) (net.Conn, error), tc *tls.Config,
	timeout time.Duration, maxBytes int64) *fetcher {
	if res == nil {
		res = net.DefaultResolver
	}
	if dial == nil {
		d := &net.Dialer{Timeout: timeout}
		dial = d.DialContext
	}
	f := &fetcher{res: res, dial: dial, timeout: timeout, maxBytes: maxBytes}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, past the address check
		DialContext:            f.dialPublic,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConns:           4,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	if tc != nil {
		tr.TLSClientConfig = tc.Clone()
	}
	f.client = &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return f
}

// checkFetchURL accepts https URLs on the default port with a DNS name, no
// user information and no fragment.
func checkFetchURL(raw string) (*url.URL, error) {
	if len(raw) > maxRedirectURI {
		return nil, fmt.Errorf("%w: URL longer than %d bytes", ErrFetchRefused, maxRedirectURI)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetchRefused, err)
	}
	switch {
	case u.Scheme != "https":
		return nil, fmt.Errorf("%w: only https URLs are fetched", ErrFetchRefused)
	case u.Host == "" || u.User != nil || u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("%w: URL needs a host and no user information or fragment", ErrFetchRefused)
	case u.Port() != "" && u.Port() != "443":
		return nil, fmt.Errorf("%w: only port 443 is fetched", ErrFetchRefused)
	}
	if _, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		return nil, fmt.Errorf("%w: URL must name a host, not an address", ErrFetchRefused)
	}
	return u, nil
}

// get fetches raw and returns the body of a 200 answer.
func (f *fetcher) get(ctx context.Context, raw string) ([]byte, error) {
	u, err := checkFetchURL(raw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil) // #nosec G704 -- fetching the client's URL is the point; checkFetchURL allowed it (https, port 443, a DNS name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetchRefused, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cortex")
	resp, err := f.client.Do(req) // #nosec G704 -- f.client dials only public addresses (dialPublic, after DNS), with no proxy or redirects and bounded time and size
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: status %d (redirects are not followed)", u.Host, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Host, err)
	}
	if int64(len(b)) > f.maxBytes {
		return nil, fmt.Errorf("%w: document larger than %d bytes", ErrFetchRefused, f.maxBytes)
	}
	return b, nil
}

// dialPublic resolves the host itself and dials only if every address it
// gets is public: a name that also points inside (a rebinding trick) is
// refused as a whole.
func (f *fetcher) dialPublic(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port != "443" {
		return nil, fmt.Errorf("%w: only port 443 is dialled", ErrFetchRefused)
	}
	ips, err := f.res.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	for _, ip := range ips {
		if !publicAddr(ip) {
			return nil, fmt.Errorf("%w: %s resolves to a non-public address", ErrFetchRefused, host)
		}
	}
	var last error
	for _, ip := range ips {
		c, err := f.dial(ctx, network, netip.AddrPortFrom(ip.Unmap(), 443).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// specialRanges are the address blocks that are not the public internet
// beyond what netip's predicates cover (RFC 6890 and successors).
var specialRanges = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"::/96", // IPv4-compatible IPv6 (deprecated): ::7f00:1 can mean 127.0.0.1
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// publicAddr reports whether ip is a public unicast address: not loopback,
// private, link-local, multicast, unspecified, shared (CGNAT),
// documentation, benchmarking, reserved, or a translation prefix that could
// lead back inside.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.Zone() != "" || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range specialRanges {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
