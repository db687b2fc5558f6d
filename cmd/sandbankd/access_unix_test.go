//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A data file the bank may not write, and a new data file in a folder it
// may not write, are refused with a sentence that names the file or
// folder, its owner, the permission that is missing and what to do,
// for the bank and for a command alike, and nothing is made. Root is not
// bound by the mode of a file: run as root, the test runs sandbankd as
// the user nobody, whose files these are not.
func TestStart_PermissionProblemsSayWhatToDo(t *testing.T) {
	asRoot := os.Geteuid() == 0
	dir, err := os.MkdirTemp("", "sandbank-access")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(path, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(dir)
	})
	// nobody must reach the binary and the files: a folder all may read.
	bin := filepath.Join(dir, "sandbankd")
	if err := copyFile(binary, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		if asRoot {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		return runCommand(t, cmd)
	}
	if asRoot {
		if out, stderr, code := run("--version"); code != 0 {
			t.Skipf("this test runs as root, which the mode of a file does not bind, and cannot run sandbankd as the user nobody (uid 65534) instead: exit %d %s %s", code, out, stderr)
		}
	}
	me := name(os.Geteuid())
	runner := me
	if asRoot {
		runner = name(65534)
	}

	// A data file that may be read but not written.
	data := filepath.Join(dir, "ro.db")
	if _, stderr, code := sandbankd(t, "", "cert", "ca", "--data", data); code != 0 {
		t.Fatalf("cert ca: exit %d %s", code, stderr)
	}
	if err := os.Chmod(data, 0o444); err != nil {
		t.Fatal(err)
	}
	want := []string{"sandbankd: the data file " + data + " cannot be written by " + runner + ", who runs Sandbank: it belongs to " + me +
		", its mode is -r--r--r--, and write permission is missing; "}
	if asRoot {
		want = append(want, "run Sandbank as root, make "+runner+" its owner (sudo chown "+runner+" "+data+"), or copy it")
	} else {
		want = append(want, "give yourself the permission (chmod u+w "+data+"), or choose another --data file")
	}
	for _, args := range [][]string{
		{"--data", data, "--addr", "127.0.0.1:0", "--tls-addr", ""},
		{"settings", "get", "trustMode", "--data", data},
	} {
		_, stderr, code := run(args...)
		if code != 1 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("sandbankd %q: exit %d, want 1 and one line\n%s", args, code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("sandbankd %q: stderr does not say %q:\n%s", args, w, stderr)
			}
		}
	}

	// A new data file in a folder that may not be written.
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0o555); err != nil { // the umask may have taken bits
		t.Fatal(err)
	}
	fresh := filepath.Join(locked, "sub", "new.db")
	want = []string{"sandbankd: the folder " + locked + " of the data file " + fresh + " cannot be written by " + runner + ", who runs Sandbank: it belongs to " + me +
		", its mode is dr-xr-xr-x, and write permission is missing; "}
	if asRoot {
		want = append(want, "choose a --data file in a folder "+runner+" may write")
	} else {
		want = append(want, "give yourself the permission (chmod u+w "+locked+"), or choose a --data file in a folder you can write")
	}
	_, stderr, code := run("--data", fresh, "--addr", "127.0.0.1:0", "--tls-addr", "")
	if code != 1 {
		t.Errorf("a new data file in a locked folder: exit %d, want 1\n%s", code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("a new data file in a locked folder: stderr does not say %q:\n%s", w, stderr)
		}
	}
	if entries, _ := os.ReadDir(locked); len(entries) != 0 {
		t.Errorf("the failed start made %v in %s", entries, locked)
	}
}

// name is the name of the user with uid, as sandbankd names it.
func name(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.Itoa(uid)
}

// copyFile copies the executable from to the new file to, mode 0755.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
