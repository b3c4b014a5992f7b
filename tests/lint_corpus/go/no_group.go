// No group at all: the agent lands in the caller's process group, and whatever kills
// it kills only it.
package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

const agent = "claude"

const (
	codexBin   = "/opt/tools/bin/" + "codex"
	geminiName = "gemini"
)

var home = os.Getenv("HOME")

func review(prompt string) ([]byte, error) {
	return exec.Command("claude", "-p", prompt).Output() // expect: agent-spawn-without-group
}

func byConstant(prompt string) error {
	cmd := exec.Command(agent, "-p", prompt) // expect: agent-spawn-without-group
	cmd.Stdout = os.Stdout
	return cmd.Run()
}

func concatenated(prompt string) error {
	cmd := exec.Command(codexBin, "exec", prompt) // expect: agent-spawn-without-group
	return cmd.Run()
}

func joined(prompt string) error {
	bin := filepath.Join(home, ".local", "bin", geminiName)
	cmd := exec.Command(bin, "-p", prompt) // expect: agent-spawn-without-group
	return cmd.Start()
}

func started(prompt string) (*exec.Cmd, error) {
	var cmd = exec.Command("aider", "--message", prompt) // expect: agent-spawn-without-group
	return cmd, cmd.Start()
}

// Both halves: a group of its own, and the group killed when the run ends.
func grouped(prompt string) error {
	cmd := exec.Command(filepath.Join(home, "bin", agent), "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func lookedUp(prompt string) error {
	path, err := exec.LookPath("codex")
	if err != nil {
		return err
	}
	return exec.Command(path, "exec", prompt).Run() // expect: agent-spawn-without-group
}
