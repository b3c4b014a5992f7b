package agents

import (
	. "os/exec"
	"syscall"
)

func dotted(prompt string) error {
	cmd := Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	return cmd.Run()
}

func dottedGroup(prompt string) error {
	cmd := Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Run()
}
