// A new group nobody kills: the helpers, now in a group of their own, outlive the run
// (even a Ctrl-C no longer reaches them).
package agents

import (
	"os/exec"
	"syscall"
	"time"
)

func setpgidOnly(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Run()
}

func setsidOnly(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	return cmd.Run()
}

func fieldSetLater(prompt string) error {
	cmd := exec.Command("gemini", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	cmd.SysProcAttr.Setpgid = true
	return cmd.Run()
}

// A kill of the caller's own group (-0) or of every process (-1) is no kill of the child's.
func wrongGroup(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-0, syscall.SIGTERM)
	return cmd.Run()
}

// Compliant: the group is killed on every way out, after a timeout too.
func withTimeout(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(10*time.Minute, func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	defer timer.Stop()
	return cmd.Wait()
}

// Compliant: the attributes held in a variable, the pgid looked up first.
var groupAttr = &syscall.SysProcAttr{Setpgid: true}

func attrVariable(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt)
	cmd.SysProcAttr = groupAttr
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err == nil {
		defer syscall.Kill(-pgid, syscall.SIGTERM)
	}
	return cmd.Wait()
}
