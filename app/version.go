package app

import "runtime/debug"

// version is set when a release is built: -ldflags "-X sandbank/app.version=v1.2.3".
var version string

// Version is Sandbank's version: the release's, else the commit the binary
// was built from (with "+dirty" when the tree had changes), else "devel".
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}

// Version is Sandbank's version (the package's Version), for the desktop
// app's About dialog and the request log's HAR export.
func (a *App) Version() string { return Version() }
