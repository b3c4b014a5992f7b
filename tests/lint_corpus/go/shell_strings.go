package agents

import (
	"os/exec"
	"syscall"
)

func viaShell(prompt string) error {
	return exec.Command("sh", "-c", "claude -p "+prompt).Run() // expect: agent-spawn-without-group
}

func viaBash(prompt string) error {
	cmd := exec.Command("/bin/bash", "-c", `cd /work && codex exec "$0"`, prompt) // expect: agent-spawn-without-group
	return cmd.Run()
}

func viaShellGrouped(prompt string) error {
	cmd := exec.Command("bash", "-c", "gemini -p \"$0\"", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Run()
}

func notAnAgent() error {
	return exec.Command("sh", "-c", "git log --oneline | head").Run()
}
