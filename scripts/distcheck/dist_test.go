package distcheck

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sandbank/app/apptest"
)

// dist is the folder make dist wrote, and version the version it linked
// in, read from the name of the linux/amd64 sandbankd.
func dist(t *testing.T) (dir, version string) {
	t.Helper()
	dir = os.Getenv("SANDBANK_DIST")
	if dir == "" {
		t.Skip("SANDBANK_DIST is not set: run make dist, then SANDBANK_DIST=$PWD/dist go test ./scripts/distcheck (.ci/run does)")
	}
	found, err := filepath.Glob(filepath.Join(dir, "sandbankd-*-linux-amd64"))
	if err != nil || len(found) != 1 {
		t.Fatalf("want one sandbankd-VERSION-linux-amd64 in %s, found %v (%v)", dir, found, err)
	}
	name := filepath.Base(found[0])
	return dir, strings.TrimSuffix(strings.TrimPrefix(name, "sandbankd-"), "-linux-amd64")
}

// run runs a binary with args and returns its standard output.
func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// checkELF checks an ELF file's machine, and that it needs no shared
// library (static) or the ones named.
func checkELF(t *testing.T, path string, machine elf.Machine, needs ...string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s: not ELF: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	if f.Machine != machine || f.Class != elf.ELFCLASS64 || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		t.Errorf("%s: %v %v %v, want %v", path, f.Machine, f.Class, f.Type, machine)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(needs) == 0 {
		if len(libs) > 0 || slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP }) {
			t.Errorf("%s is not static: it needs %v", path, libs)
		}
	}
	for _, lib := range needs {
		if !slices.Contains(libs, lib) {
			t.Errorf("%s does not link %s: %v", path, lib, libs)
		}
	}
}

// checkPE checks a Windows program's machine and subsystem (3 a console
// program, 2 a window) and the DLLs it imports.
func checkPE(t *testing.T, path string, subsystem uint16, dlls ...string) *pe.File {
	t.Helper()
	f, err := pe.Open(path)
	if err != nil {
		t.Fatalf("%s: not a Windows program: %v", path, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	opt, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || !ok || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
		t.Fatalf("%s: machine %#x, 64-bit header %v, characteristics %#x", path, f.Machine, ok, f.Characteristics)
	}
	if opt.Subsystem != subsystem {
		t.Errorf("%s: subsystem %d, want %d", path, opt.Subsystem, subsystem)
	}
	// debug/pe lists imports as "symbol:dll".
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	libs := map[string]bool{}
	for _, s := range syms {
		if _, dll, ok := strings.Cut(s, ":"); ok {
			libs[strings.ToLower(dll)] = true
		}
	}
	for _, dll := range dlls {
		if !libs[strings.ToLower(dll)] {
			t.Errorf("%s does not import %s: %v", path, dll, libs)
		}
	}
	return f
}

// contains reports whether a file holds b (a version linked in).
func contains(t *testing.T, path string, b string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(data, []byte(b))
}

func TestDist_Sandbankd(t *testing.T) {
	dir, version := dist(t)
	name := func(platform string) string { return filepath.Join(dir, "sandbankd-"+version+"-"+platform) }

	checkELF(t, name("linux-amd64"), elf.EM_X86_64)
	if out := run(t, name("linux-amd64"), "--version"); out != "sandbankd "+version+"\n" {
		t.Errorf("sandbankd --version: %q, want the version %q", out, version)
	}
	checkELF(t, name("linux-arm64"), elf.EM_AARCH64)

	for platform, cpu := range map[string]macho.Cpu{"darwin-amd64": macho.CpuAmd64, "darwin-arm64": macho.CpuArm64} {
		f, err := macho.Open(name(platform))
		if err != nil {
			t.Errorf("%s: not Mach-O: %v", platform, err)
			continue
		}
		if f.Cpu != cpu || f.Type != macho.TypeExec {
			t.Errorf("%s: cpu %v type %v", platform, f.Cpu, f.Type)
		}
		_ = f.Close()
	}

	exe := name("windows-amd64.exe")
	checkPE(t, exe, pe.IMAGE_SUBSYSTEM_WINDOWS_CUI, "kernel32.dll")
	for _, path := range []string{name("linux-arm64"), name("darwin-amd64"), name("darwin-arm64"), exe} {
		if !contains(t, path, version) {
			t.Errorf("%s does not hold the version %s", path, version)
		}
	}
}

func TestDist_DesktopWindows(t *testing.T) {
	dir, version := dist(t)
	exe := filepath.Join(dir, "sandbank-"+version+"-windows-amd64.exe")
	// A window program (no console) with OpenGL: the Fyne app built with
	// cgo, carrying its icon and version resources.
	f := checkPE(t, exe, pe.IMAGE_SUBSYSTEM_WINDOWS_GUI, "opengl32.dll", "gdi32.dll")
	rsrc := f.Section(".rsrc")
	if rsrc == nil {
		t.Fatal("no resource section: the icon and version information are missing")
	}
	res, err := rsrc.Data()
	if err != nil {
		t.Fatal(err)
	}
	// Version information is UTF-16: "Sandbank" as ProductName.
	if !bytes.Contains(res, utf16("ProductName")) || !bytes.Contains(res, utf16("Sandbank")) || !bytes.Contains(res, []byte("\x89PNG")) && !bytes.Contains(res, []byte{40, 0, 0, 0}) {
		t.Error("the resources lack the product name or the icon")
	}
	if !contains(t, exe, version) {
		t.Errorf("%s does not hold the version %s", exe, version)
	}
}

// utf16 encodes ASCII text as UTF-16LE.
func utf16(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, c := range []byte(s) {
		b = append(b, c, 0)
	}
	return b
}

func TestDist_DesktopLinux(t *testing.T) {
	dir, version := dist(t)
	archive := filepath.Join(dir, "sandbank-"+version+"-linux-amd64.tar.xz")
	if _, err := os.Stat(archive); err != nil {
		t.Fatal(err)
	}
	// xz from the command line; archive/tar reads what it unpacks.
	xz := exec.Command("xz", "--decompress", "--stdout", archive)
	var stderr bytes.Buffer
	xz.Stderr = &stderr
	out, err := xz.Output()
	if err != nil {
		t.Fatalf("xz -dc %s: %v %s", archive, err, stderr.String())
	}
	icon, err := os.ReadFile("../../assets/icon.png")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	modes := map[string]int64{}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], modes[h.Name] = body, h.Mode
	}
	find := func(pattern string) string {
		t.Helper()
		for name := range files {
			if ok, _ := filepath.Match(pattern, name); ok {
				return name
			}
		}
		t.Fatalf("no %s in %s: %v", pattern, archive, slices.Sorted(func(yield func(string) bool) {
			for n := range files {
				if !yield(n) {
					return
				}
			}
		}))
		return ""
	}
	// fyne package lays it out for make install into /usr/local.
	bin := find("sandbank/usr/local/bin/sandbank")
	desktop := find("sandbank/usr/local/share/applications/*.desktop")
	png := find("sandbank/usr/local/share/pixmaps/*.png")
	find("sandbank/Makefile")
	if modes[bin]&0o111 == 0 {
		t.Errorf("%s is not executable: %o", bin, modes[bin])
	}
	if !bytes.Equal(files[png], icon) {
		t.Errorf("%s is not assets/icon.png", png)
	}
	entry := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(files[desktop]))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			entry[k] = v
		}
	}
	iconName := strings.TrimSuffix(filepath.Base(png), ".png")
	if entry["Type"] != "Application" || entry["Name"] != "Sandbank" || entry["Exec"] != "sandbank" || entry["Icon"] != iconName {
		t.Errorf("%s: %q", desktop, files[desktop])
	}

	// The README's install: make install with the archive's Makefile.
	unpacked, dest := t.TempDir(), t.TempDir()
	for name, body := range files {
		path := filepath.Join(unpacked, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, os.FileMode(modes[name]&0o777)); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("make", "-C", filepath.Join(unpacked, "sandbank"), "install", "DESTDIR="+dest, "PREFIX=/usr/local").CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	installed := filepath.Join(dest, "usr", "local", "bin", "sandbank")
	for _, path := range []string{installed, filepath.Join(dest, "usr", "local", "share", "applications", filepath.Base(desktop)), filepath.Join(dest, "usr", "local", "share", "pixmaps", filepath.Base(png))} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("make install: %v", err)
		}
	}

	// The desktop app: x86-64, linked with OpenGL (cgo), and it says its
	// version without opening a window.
	checkELF(t, installed, elf.EM_X86_64, "libGL.so.1")
	if got := run(t, installed, "--version"); got != "sandbank "+version+"\n" {
		t.Errorf("sandbank --version: %q, want the version %q", got, version)
	}

	// In a display (.ci/run runs this in Xvfb), the installed app opens its
	// window and its bank serves, with the version on GET /.
	if os.Getenv("DISPLAY") == "" {
		t.Log("DISPLAY is not set: the installed desktop app was not started (scripts/with-display starts Xvfb)")
		return
	}
	p := apptest.StartProcess(t, installed, []string{"LANG=en_US.UTF-8", "HOME=" + t.TempDir()},
		"--data", filepath.Join(t.TempDir(), "sandbank.db"), "--addr", "127.0.0.1:0", "--tls-addr", "")
	resp, err := http.Get(p.URLs[0] + "/")
	if err != nil {
		t.Fatal(err)
	}
	var landing struct{ Version string }
	err = json.NewDecoder(resp.Body).Decode(&landing)
	_ = resp.Body.Close()
	if err != nil || landing.Version != version {
		t.Errorf("the desktop app's GET / version %q (%v), want %q", landing.Version, err, version)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ := exec.Command("xwininfo", "-name", "Sandbank").CombinedOutput()
		if bytes.Contains(out, []byte("Map State: IsViewable")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Sandbank window within 60 s: %s\n%s", out, p.Stderr())
		}
	}
	if err := p.Stop(t); err != nil {
		t.Fatalf("the desktop app on SIGTERM: %v\n%s", err, p.Stderr())
	}
}

func TestDist_SHA256SUMS(t *testing.T) {
	dir, _ := dist(t)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not \"SUM  NAME\"", line)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s, the file is %x", name, sum, got)
		}
		listed[name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range entries {
		if e.Name() != "SHA256SUMS" {
			want++
			if !listed[e.Name()] {
				t.Errorf("%s is not in SHA256SUMS", e.Name())
			}
		}
	}
	if want < 7 {
		t.Errorf("%d release files in %s; make dist writes 7", want, dir)
	}
}
