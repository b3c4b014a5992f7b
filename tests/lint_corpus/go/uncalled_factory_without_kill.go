// A factory no function of this file calls, with no kill offered beside it: the one
// group kill of the file ends another function's own child, so it is not the factory's.
package agent

import (
	"os/exec"
	"syscall"
)

func StartAgent(prompt string) (*exec.Cmd, error) {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Compliant: its own child, its own group kill.
func Review(diff string) error {
	cmd := exec.Command("codex", "review", diff)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}
