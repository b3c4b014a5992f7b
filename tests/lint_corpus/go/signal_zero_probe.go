// Signal 0 only asks whether the group is there: syscall.Kill(-pid, 0) kills nothing.
package agents

import (
	"os/exec"
	"syscall"
)

func probedThenLeaderOnly(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		if syscall.Kill(-cmd.Process.Pid, 0) == nil {
			_ = cmd.Process.Kill()
		}
	}()
	return cmd.Wait()
}

func probedThenKilled(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		if syscall.Kill(-cmd.Process.Pid, 0) == nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	return cmd.Wait()
}
