package vault

import "context"

type dryRunKey struct{}

// WithDryRun marks ctx so that Create, Append, AppendAt, Edit,
// ReplaceSection and UpdateFrontmatter make every check a write makes,
// under the note's lock, compute the new text, and write nothing: no
// note, no history, no index. The WriteResult says what would change.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

func isDryRun(ctx context.Context) bool {
	d, _ := ctx.Value(dryRunKey{}).(bool)
	return d
}
