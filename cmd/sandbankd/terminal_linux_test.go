package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// On a terminal, a command says without -v which running bank it asks:
// someone is there to read it.
func TestRunningBank_NoteOnATerminal(t *testing.T) {
	data := filepath.Join(t.TempDir(), "sandbank.db")
	d := startDaemon(t, data)
	terminal, tty := openPTY(t)
	cmd := exec.Command(binary, "settings", "get", "trustMode", "--data", data)
	cmd.Stderr = tty
	out, err := cmd.Output()
	_ = tty.Close()
	if err != nil || string(out) != "any\n" {
		t.Fatalf("settings get with a terminal for standard error: %v %q", err, out)
	}
	said, _ := io.ReadAll(terminal) // until the terminal's other end is closed
	if want := "The data file is in use by a running bank; asking it at " + d.URLs[0] + "."; !strings.Contains(string(said), want) {
		t.Fatalf("the terminal shows %q; want %q", said, want)
	}
}

// openPTY opens a pseudo-terminal: the side a terminal reads, and the
// terminal device a program writes to.
func openPTY(t *testing.T) (terminal, tty *os.File) {
	t.Helper()
	terminal, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = terminal.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, terminal.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, terminal.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("number the pseudo-terminal: %v", errno)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal's device: %v", err)
	}
	return terminal, tty
}
