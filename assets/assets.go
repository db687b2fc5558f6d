// Package assets holds the files Sandbank embeds: the known-state data set.
package assets

import _ "embed"

// KnownState is the scenario that initialize loads (API.md 9.1), in the
// format of GET /v1/sandbox/scenario. Records without ids get the fixed ids
// of their positions.
//
//go:embed knownstate.json
var KnownState []byte
