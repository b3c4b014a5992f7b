// A factory returning a command with a group of its own hands the kill to its callers:
// each must kill the group, and the caller that does worst decides.
package agents

import (
	"os/exec"
	"syscall"
)

func newReviewer(q string) *exec.Cmd {
	cmd := exec.Command("claude", "-p", q) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func reviewKilled() {
	c := newReviewer("a")
	_ = c.Start()
	defer syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	_ = c.Wait()
}

func reviewLeaderOnly() {
	c := newReviewer("b")
	_ = c.Start()
	defer c.Process.Kill()
	_ = c.Wait()
}

func newWriter(q string) *exec.Cmd {
	cmd := exec.Command("codex", "exec", q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func writeOnce() {
	c := newWriter("a")
	_ = c.Start()
	defer syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	_ = c.Wait()
}

func writeTwice() {
	c := newWriter("b")
	_ = c.Start()
	defer func() { _ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM) }()
	_ = c.Wait()
}
