// A command handed to a method of a package variable (`agents.Store(id, cmd)` on a
// `sync.Map`) is kept there: the file's functions using that variable are in reach, so
// StopAll() ranging over it and killing each group counts; one killing only each leader
// does not.
package agents

import (
	"os/exec"
	"sync"
	"syscall"
)

var agents sync.Map

func StartAgent(id, p string) error {
	cmd := exec.Command("claude", "-p", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	agents.Store(id, cmd)
	return nil
}

func StopAll() {
	agents.Range(func(_, v any) bool {
		c := v.(*exec.Cmd)
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		return true
	})
}

var reviewers sync.Map

func StartReviewer(id, p string) error {
	cmd := exec.Command("codex", "exec", p) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	reviewers.Store(id, cmd)
	return nil
}

func StopReviewers() {
	reviewers.Range(func(_, v any) bool {
		_ = v.(*exec.Cmd).Process.Kill()
		return true
	})
}
