package agents

import (
	"fmt"
	"os/exec"
	"syscall"
)

const binDir = "/opt/agents/bin"

func viaSprintf(prompt string) error {
	return exec.Command(fmt.Sprintf("%s/claude", binDir), "-p", prompt).Run() // expect: agent-spawn-without-group
}

func viaSprintfName(prompt string) error {
	return exec.Command(fmt.Sprintf("%s/%s", binDir, "codex"), "exec", prompt).Run() // expect: agent-spawn-without-group
}

func viaSprintfGrouped(prompt string) error {
	cmd := exec.Command(fmt.Sprintf("%s/gemini", binDir), "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Run()
}

func viaSprintfNotAnAgent() error {
	return exec.Command(fmt.Sprintf("%s/gofmt", binDir), "-l", ".").Run()
}

func viaSprintfDynamic(tool string) error {
	return exec.Command(fmt.Sprintf("%s/%s", binDir, tool)).Run()
}
