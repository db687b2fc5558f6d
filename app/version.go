package app

import (
	"regexp"
	"runtime/debug"
)

// version is set when a release is built: -ldflags "-X sandbank/app.version=v1.2.3".
var version string

// Version is Sandbank's version: the release's (make dist links it in),
// else what Go recorded of the build (see buildVersion), else "devel".
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return buildVersion(info)
}

// pseudoVersion matches the tail of a Go pseudo-version, such as
// v0.0.0-20261127021514-5085f78d15a5: a version Go made up from a commit,
// not a release's tag.
var pseudoVersion = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// buildVersion is the version Go recorded of a build: the module's when it
// is a release's tag (go install sandbank/cmd/sandbankd@v1.2.3, or a build
// of a tagged commit), else "devel" and the commit it was built from,
// "(modified)" when the tree had changes: "devel 1a2b3c4d5e6f (modified)".
// Without either (a build with -buildvcs=false, or from a tree without
// git) it is "devel".
func buildVersion(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) {
		return v
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel " + rev[:min(len(rev), 12)]
	if modified {
		v += " (modified)"
	}
	return v
}

// Version is Sandbank's version (the package's Version), for the desktop
// app's About dialog and the request log's HAR export.
func (a *App) Version() string { return Version() }
