// exec.CommandContext kills only the process when the context ends: its default Cancel
// is cmd.Process.Kill.
package agents

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

func contextOnly(ctx context.Context, prompt string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "claude", "-p", prompt) // expect: agent-spawn-without-group
	return cmd.Run()
}

func contextInline(ctx context.Context, prompt string) ([]byte, error) {
	return exec.CommandContext(ctx, "codex", "exec", prompt).CombinedOutput() // expect: agent-spawn-without-group
}

func contextWithGroup(ctx context.Context, prompt string) error {
	cmd := exec.CommandContext(ctx, "gemini", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Run()
}

// Compliant: a group, and Cancel kills all of it.
func contextCancelsGroup(ctx context.Context, prompt string) error {
	cmd := exec.CommandContext(ctx, "claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}
