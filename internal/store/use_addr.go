package store

import "context"

// useAddrKey carries, in a request's context, the address a credential is
// being used from, so that the bookkeeping write of last_used can record it
// alongside (last_addr) without another write.
type useAddrKey struct{}

// WithUseAddr returns ctx carrying addr, the client address the listener
// resolved for the request that presents a credential. It is an address,
// never anything secret; it is stored as given (bounded to 64 bytes).
func WithUseAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, useAddrKey{}, addr)
}

// useAddr is the address WithUseAddr put in ctx, or "".
func useAddr(ctx context.Context) string {
	a, _ := ctx.Value(useAddrKey{}).(string)
	if len(a) > 64 {
		a = a[:64]
	}
	return a
}
