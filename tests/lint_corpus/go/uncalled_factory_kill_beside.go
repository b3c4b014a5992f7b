// A factory no function of this file calls is API for other packages: the group kill
// offered beside it (a function that starts nothing itself) is the one its users call.
// The group comes from a helper of the file setting Setpgid on its parameter.
package agent

import (
	"os/exec"
	"syscall"
)

func setSysProcAttributes(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		Pgid:    0,
	}
}

// Compliant: the group from the helper, the kill offered beside.
func StartAgent(prompt string) (*exec.Cmd, error) {
	cmd := exec.Command("claude", "-p", prompt)
	setSysProcAttributes(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// Compliant: handed out as it is, its group set by the helper.
func NewCodex(prompt string) *exec.Cmd {
	cmd := exec.Command("codex", "exec", prompt)
	setSysProcAttributes(cmd)
	return cmd
}

// The group is made, but only what the command did is returned: nobody can kill it.
func RunGemini(prompt string) error {
	cmd := exec.Command("gemini", "-p", prompt) // expect: agent-spawn-without-group
	setSysProcAttributes(cmd)
	return cmd.Run()
}

func StopAgent(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

// Compliant: the pid handed out, killed by the caller.
func startPid(prompt string) (int, error) {
	cmd := exec.Command("opencode", "run", prompt)
	setSysProcAttributes(cmd)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
}

func RunOpencode(prompt string) error {
	pid, err := startPid(prompt)
	if err != nil {
		return err
	}
	defer syscall.Kill(-pid, syscall.SIGKILL)
	return nil
}
