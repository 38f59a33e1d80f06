package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/editdist"
	"github.com/skillstore/skillstore/store"
)

// cliWords rewrites the tools' texts, which name the tools a model calls,
// into the commands a person runs.
var cliWords = strings.NewReplacer(
	"Call list_skills to see", "Run `skillstore list` to see",
	"as list_skills returns it", "as `skillstore list` shows it",
	"call list_skills", "run `skillstore list`",
	"Load one with get_skill (skill_name).", "Print one with `skillstore get NAME`.",
	"call search_skills", "run `skillstore search`",
)

// maxSuggestions bounds the names a "did you mean" offers.
const maxSuggestions = 3

// suggest returns the served skills' names closest to name, a name that
// is served by none: those within a few edits of it (a third of its
// length, at least 2), or that hold it or that it holds, closest first.
// Only skills the store serves are offered (the CLI's caller sees them
// all).
func suggest(ctx context.Context, s *store.Store, name string) []string {
	list, err := s.View(nil).List(ctx)
	if err != nil || name == "" {
		return nil
	}
	type near struct {
		name string
		d    int
	}
	var found []near
	want := strings.ToLower(name)
	limit := max(2, len(want)/3)
	for _, sk := range list {
		n := strings.ToLower(sk.Name)
		d := editdist.Distance(want, n, limit)
		if d > limit && (len(want) >= 3 && strings.Contains(n, want) || len(n) >= 3 && strings.Contains(want, n)) {
			d = limit // a part of the name
		}
		if d <= limit {
			found = append(found, near{sk.Name, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.d - b.d })
	out := make([]string, 0, maxSuggestions)
	for _, f := range found[:min(len(found), maxSuggestions)] {
		out = append(out, f.name)
	}
	return out
}

// notFound reports an unknown skill name as the CLI says it: the
// contract's sentence, the closest names served, and how to list them.
// It returns nil when err is no unknown skill.
// msg, if set, is the sentence to print instead of err's (the tool's).
func notFound(ctx context.Context, w io.Writer, s *store.Store, name string, err error, msg string) error {
	if !errors.Is(err, store.ErrSkillNotFound) {
		return nil
	}
	if msg == "" {
		msg = errorText(err)
	}
	fmt.Fprintln(w, "skillstore:", msg)
	if near := suggest(ctx, s, name); len(near) > 0 {
		fmt.Fprintf(w, "\nDid you mean %s?\n", strings.Join(near, ", "))
	}
	fmt.Fprintln(w, "Run `skillstore list` to see every skill served.")
	return exitCode(1)
}
