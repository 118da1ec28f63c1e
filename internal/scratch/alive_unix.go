//go:build unix

package scratch

import (
	"errors"
	"syscall"
)

// alive reports whether a process of this PID namespace exists (signal 0
// checks without sending anything; EPERM means it exists as another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
