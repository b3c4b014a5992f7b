// The halves in functions of the same file, called with the command or its pid.
package agents

import (
	"os/exec"
	"syscall"
)

func setGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// Compliant: both halves through helpers of this file.
func viaHelpers(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	defer killGroup(pid)
	return cmd.Wait()
}

// Compliant: the attributes from a constructor function, the kill through a helper.
func viaConstructor(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt)
	cmd.SysProcAttr = groupAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer killGroup(cmd.Process.Pid)
	return cmd.Wait()
}

// The group helper is called, the kill helper is not.
func halfHelpers(prompt string) error {
	cmd := exec.Command("gemini", "-p", prompt) // expect: agent-spawn-without-group
	setGroup(cmd)
	return cmd.Run()
}

// Compliant: a builder returns the command; its caller kills the group.
func agentCommand(prompt string) *exec.Cmd {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func runBuilt(prompt string) error {
	cmd := agentCommand(prompt)
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}
