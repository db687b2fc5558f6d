package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMetadata_MatchesFyneAppToml keeps the metadata set in code in step
// with FyneApp.toml, which packaging reads.
func TestMetadata_MatchesFyneAppToml(t *testing.T) {
	data, err := os.ReadFile("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, "=")
		if ok {
			values[strings.TrimSpace(key)] = strings.Trim(strings.TrimSpace(value), `"`)
		}
	}
	if values["ID"] != metadata.ID || values["Name"] != metadata.Name || values["Version"] != metadata.Version || values["Build"] != strconv.Itoa(metadata.Build) {
		t.Fatalf("FyneApp.toml %v, code %+v", values, metadata)
	}
	if values["fyneDo"] != "true" || !metadata.Migrations["fyneDo"] {
		t.Fatal("the fyneDo migration is not set in both")
	}
	if _, err := os.Stat("../../" + values["Icon"]); err != nil {
		t.Fatalf("icon: %v", err)
	}
}
