package app

import (
	"runtime/debug"
	"testing"
)

// A build without a linked version names what Go recorded: a release's
// module version, else the commit and whether the tree was modified, and
// bare "devel" only when Go recorded neither.
func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "5085f78d15a54a1f03bab5580c22dd8b2ac5641e"
	for _, c := range []struct {
		name     string
		module   string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install @tag", "v1.2.3", nil, "v1.2.3"},
		{"a tagged commit with changes", "v1.2.3+dirty", vcs(rev, "true"), "v1.2.3+dirty"},
		{"a commit after no tag", "v0.0.0-20261127021514-5085f78d15a5", vcs(rev, "false"), "devel 5085f78d15a5"},
		{"a commit after no tag, modified", "v0.0.0-20261127021514-5085f78d15a5+dirty", vcs(rev, "true"), "devel 5085f78d15a5 (modified)"},
		{"a commit after a tag", "v1.2.4-0.20261127021514-5085f78d15a5", vcs(rev, "false"), "devel 5085f78d15a5"},
		{"a pre-release tag's successor", "v1.3.0-rc.1.0.20261127021514-5085f78d15a5", vcs(rev, "false"), "devel 5085f78d15a5"},
		{"-buildvcs=false", "(devel)", nil, "devel"},
		{"no module version", "", vcs("abc", "true"), "devel abc (modified)"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "sandbank", Version: c.module}, Settings: c.settings}
		if got := buildVersion(info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
