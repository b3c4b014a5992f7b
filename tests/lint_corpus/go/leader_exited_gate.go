// A group kill inside an `if` on the leader not having exited normally
// (`!cmd.ProcessState.Exited()`) is skipped exactly when the leader exited on its own,
// leaving its helpers behind. A kill after the wait, on any other condition, is not gated.
package agents

import (
	"errors"
	"os/exec"
	"syscall"
)

func killUnlessExited(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	if cmd.ProcessState != nil && !cmd.ProcessState.Exited() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}

var errSkipped = errors.New("skipped")

func killAfterWait(prompt string) error {
	cmd := exec.Command("gemini", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	if !errors.Is(err, errSkipped) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}
