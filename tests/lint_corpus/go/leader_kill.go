// cmd.Process.Kill() signals the leader alone: the agent dies, its MCP servers stay.
package agents

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

func killsLeader(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	return cmd.Wait()
}

func signalsLeader(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Signal(os.Interrupt)
	return cmd.Wait()
}

// Compliant: the leader first, politely, then the whole group.
func killsGroupToo(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	return cmd.Wait()
}
