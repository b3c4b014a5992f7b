// A group kill through a name bound to the negative pid first.
package runner

import (
	"os/exec"
	"syscall"
)

func grouped(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := -cmd.Process.Pid
	defer syscall.Kill(pgid, syscall.SIGKILL)
	return cmd.Wait()
}

func leaderOnly(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	defer syscall.Kill(pid, syscall.SIGKILL)
	return cmd.Wait()
}
