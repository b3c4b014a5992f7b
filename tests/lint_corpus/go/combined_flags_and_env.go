package agents

import (
	"os/exec"
	"syscall"
)

func viaLoginShell() ([]byte, error) {
	return exec.Command("bash", "-lc", "claude -p 'review the diff'").CombinedOutput() // expect: agent-spawn-without-group
}

func viaStrictShell() error {
	return exec.Command("sh", "-ec", "cd /work && codex exec fix").Run() // expect: agent-spawn-without-group
}

func viaEnv(prompt string) ([]byte, error) {
	return exec.Command("/usr/bin/env", "claude", "-p", prompt).Output() // expect: agent-spawn-without-group
}

func viaEnvAssignment(prompt string) error {
	return exec.Command("env", "NO_COLOR=1", "gemini", "-p", prompt).Run() // expect: agent-spawn-without-group
}

func viaLoginShellGrouped() error {
	cmd := exec.Command("bash", "-lc", "claude -p hi")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Run()
}

func loginShellNotAnAgent() error {
	return exec.Command("bash", "-lc", "go test ./...").Run()
}

func envNotAnAgent() error {
	return exec.Command("/usr/bin/env", "python3", "-V").Run()
}
