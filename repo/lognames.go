package repo

import (
	"context"
	"log/slog"
)

// namingLogger gives log through a handler that names, in every attribute,
// the repository's files instead of the run's private copies of them
// (pathNames), as the run's reports do: a log line about a frozen catalog
// named /tmp/fdl-backfill-*/frozen-*/N-ducklake.duckdb, a path gone when
// the run ends, and no version. A string attribute that named a copy
// keeps the copy's path in an extra attribute, <key>_local (the file is
// there while the run lasts); an error's message is rewritten alone.
func (r *repository) namingLogger(log *slog.Logger) *slog.Logger {
	return slog.New(&namingHandler{h: log.Handler(), names: &r.names})
}

type namingHandler struct {
	h     slog.Handler
	names *pathNames
}

func (n *namingHandler) Enabled(ctx context.Context, l slog.Level) bool { return n.h.Enabled(ctx, l) }

func (n *namingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, n.names.name(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(n.attrs(a)...)
		return true
	})
	return n.h.Handle(ctx, out)
}

func (n *namingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var named []slog.Attr
	for _, a := range as {
		named = append(named, n.attrs(a)...)
	}
	return &namingHandler{h: n.h.WithAttrs(named), names: n.names}
}

func (n *namingHandler) WithGroup(name string) slog.Handler {
	return &namingHandler{h: n.h.WithGroup(name), names: n.names}
}

// attrs is a with the repository's names: itself, or the named attribute
// and, for a string, the private path under <key>_local.
func (n *namingHandler) attrs(a slog.Attr) []slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := n.names.name(v.String()); s != v.String() {
			return []slog.Attr{slog.String(a.Key, s), slog.String(a.Key+"_local", v.String())}
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			if s := n.names.name(err.Error()); s != err.Error() {
				return []slog.Attr{slog.String(a.Key, s)}
			}
		}
	case slog.KindGroup:
		var g []slog.Attr
		for _, ga := range v.Group() {
			g = append(g, n.attrs(ga)...)
		}
		return []slog.Attr{{Key: a.Key, Value: slog.GroupValue(g...)}}
	}
	return []slog.Attr{a}
}
