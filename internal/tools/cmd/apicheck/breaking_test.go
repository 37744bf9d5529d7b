package main

import (
	"go/types"
	"slices"
	"strings"
	"testing"
)

func TestChangedNames(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string][]string{
		"ToolCall: removed":                                   {"ToolCall"},
		"(*Server).ThreadCount: removed":                      {"Server", "ThreadCount"},
		"ThreadPage.Items: removed":                           {"ThreadPage", "Items"},
		"NewClient: changed from func() to func(int)":         {"NewClient"},
		"(*Page[T]).Next: changed from func() to func(int)":   {"Page", "Next"},
		"Inner.M, method set of *Outer: removed":              {"Inner", "M"},
		"package github.com/threadsapi/threads-go/x: removed": {"x"},
		"github.com/threadsapi/threads-go.Client: removed":    {"Client"},
		"./sub.T: removed":                                    {"T"},
	} {
		if got := changedNames(msg); !slices.Equal(got, want) {
			t.Errorf("changedNames(%q) = %q, want %q", msg, got, want)
		}
	}
}

const changelogBefore = `# Changelog

## [Unreleased]

Entries marked **Breaking** change something a program may rely on.

### Changed

- **Breaking: ` + "`threadstest.ToolCall`" + ` is renamed ScriptedToolCall.** Migrate:
  rename it.
- An ordinary entry.
`

// TestNewBreakingEntries: only list items count (not the paragraph that
// explains the marker), only those written since the baseline, and an
// entry edited since counts as new, joined across its lines.
func TestNewBreakingEntries(t *testing.T) {
	t.Parallel()
	now := strings.Replace(changelogBefore, "- An ordinary entry.\n", "- An ordinary entry.\n"+
		"- **Breaking: `Server.ThreadCount` is removed.** Migrate: `len(srv.ThreadIDs())`.\n"+
		"* **Breaking**: `NewClient`\n  takes options.\n"+
		"- Not breaking: `AttachmentPart` is added.\n", 1)
	got := newBreakingEntries(changelogBefore, now)
	want := []string{
		"- **Breaking: `Server.ThreadCount` is removed.** Migrate: `len(srv.ThreadIDs())`.",
		"* **Breaking**: `NewClient` takes options.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("new entries %q, want %q", got, want)
	}

	edited := strings.Replace(changelogBefore, "  rename it.", "  rename it; `ToolResult` too.", 1)
	if got := newBreakingEntries(changelogBefore, edited); len(got) != 1 || !strings.Contains(got[0], "ToolResult") {
		t.Errorf("an edited entry: %q, want it as new", got)
	}
	if got := newBreakingEntries(changelogBefore, changelogBefore); len(got) != 0 {
		t.Errorf("unchanged changelog: %q, want no new entry", got)
	}
}

// TestCoveringEntry: an entry covers a change when it names each of its
// identifiers as a whole word.
func TestCoveringEntry(t *testing.T) {
	t.Parallel()
	entries := []string{
		"- **Breaking: `threadstest.ScriptedToolCall` gains a field.**",
		"- **Breaking: `threadstest.Server.ThreadCount` is removed.**",
		"- **Breaking: `Deprecation.Problem` is removed**; `Problem.Deprecation` stays.",
	}
	for _, c := range []struct {
		names []string
		want  int // index into entries, -1 for none
	}{
		{[]string{"ToolCall"}, -1}, // ScriptedToolCall is another name
		{[]string{"ScriptedToolCall"}, 0},
		{[]string{"Server", "ThreadCount"}, 1},
		{[]string{"Client", "ThreadCount"}, -1},
		{[]string{"Deprecation", "Problem"}, 2},
	} {
		got := coveringEntry(entries, c.names)
		want := ""
		if c.want >= 0 {
			want = entries[c.want]
		}
		if got != want {
			t.Errorf("coveringEntry(%q) = %q, want %q", c.names, got, want)
		}
	}
}

// TestIncompatibleChanges: apidiff's verdicts by package, a removed package
// is incompatible, an added one is not, and a new Version value is no break.
func TestIncompatibleChanges(t *testing.T) {
	t.Parallel()
	old := []*types.Package{
		typeCheck(t, "example.com/m", `package m
const Version = "0.1.0"
func Keep(a int) {}
func Renamed() {}
type T struct{ F int }
`),
		typeCheck(t, "example.com/m/gone", "package gone\nfunc X() {}\n"),
	}
	now := []*types.Package{
		typeCheck(t, "example.com/m", `package m
const Version = "0.2.0"
func Keep(b int) {}
func NewName() {}
type T struct{ F, G int }
`),
		typeCheck(t, "example.com/m/added", "package added\nfunc Y() {}\n"),
	}
	got, compatible := incompatibleChanges(old, now)
	want := []incompatibility{
		{"m", "Renamed: removed"},
		{"gone", "package example.com/m/gone: removed"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("incompatible %q, want %q", got, want)
	}
	// NewName, T.G, the Version value, package added.
	if compatible != 4 {
		t.Errorf("compatible = %d, want 4", compatible)
	}
}
