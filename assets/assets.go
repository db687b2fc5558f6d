// Package assets holds the files Sandbank embeds: the known-state data set,
// the example scenarios and the application icon.
package assets

import "embed"

// KnownState is the scenario that initialize loads (README, "The known state"), in the
// format of GET /v1/sandbox/scenario. Records without ids get the fixed ids
// of their positions.
//
//go:embed knownstate.json
var KnownState []byte

// Scenarios holds the example scenario files (scenarios/*.json) written
// into a new scenarios folder.
//
//go:embed scenarios/*.json
var Scenarios embed.FS

// Icon is the application icon (PNG).
//
//go:embed icon.png
var Icon []byte

// SCA holds the SCA page's template (sca/page.html) and style sheet
// (sca/sandbank.css).
//
//go:embed sca
var SCA embed.FS
