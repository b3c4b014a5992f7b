// A group kill in a `switch` case asking that the leader has not been reaped (`case
// cmd.ProcessState == nil:`, `switch cmd.ProcessState { case nil: }`), in the `default:`
// after a case asking that it has, or after a `switch` whose reaped case returns, runs
// only while the leader lives: when it exits first, its helpers survive. A switch on
// anything else gates nothing.
package agents

import (
	"os/exec"
	"syscall"
)

func caseNotReaped(p string) error {
	cmd := exec.Command("claude", "-p", p) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	switch {
	case cmd.ProcessState == nil:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd.Wait()
}

func taggedCaseNil(p string) error {
	cmd := exec.Command("codex", "exec", p) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	switch cmd.ProcessState {
	case nil:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd.Wait()
}

func defaultAfterReaped(p string) error {
	cmd := exec.Command("gemini", "-p", p) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	switch {
	case cmd.ProcessState != nil:
		return nil
	default:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd.Wait()
}

func afterReturningSwitch(p string) error {
	cmd := exec.Command("aider", p) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	switch {
	case cmd.ProcessState != nil && cmd.ProcessState.Exited():
		return nil
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func switchOnReason(p string, reason string) error {
	cmd := exec.Command("goose", "run", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	switch reason {
	case "timeout":
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	default:
	}
	return cmd.Wait()
}

func switchLogsStatusThenKills(p string) error {
	cmd := exec.Command("opencode", "run", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	switch {
	case cmd.ProcessState == nil:
		println("never reaped")
	default:
		println("reaped")
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return err
}
