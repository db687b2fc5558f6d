// Package distcheck checks the release files make dist writes into dist/:
// each is a program for its platform, the Linux binaries say their
// version, the desktop app's tar.xz holds what a desktop needs, and
// SHA256SUMS matches. Its test runs when SANDBANK_DIST names the folder
// (.ci/run sets it after make dist).
package distcheck
