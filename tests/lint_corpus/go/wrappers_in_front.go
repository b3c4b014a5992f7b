// An agent behind a wrapper that keeps its group (`nohup`, `env`) is still an agent run.
package agents

import "os/exec"

func Background(prompt string) error {
	return exec.Command("nohup", "claude", "-p", prompt).Start() // expect: agent-spawn-without-group
}

func InShell() error {
	return exec.Command("sh", "-c", "env FOO=1 nohup codex exec fix &").Run() // expect: agent-spawn-without-group
}

func Installed() bool {
	_, err := exec.LookPath("claude")
	return err == nil
}

func UnderTimeout(prompt string) error {
	return exec.Command("timeout", "600", "claude", "-p", prompt).Run()
}
