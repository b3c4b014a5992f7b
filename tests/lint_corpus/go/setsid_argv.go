// `setsid` as the program, the agent its argument: setsid execs in place in the started
// process, so cmd.Process.Pid is the new session's id. That is the group half of the
// cleanup; the group must still be killed. With `--fork` (`-f`) the session is a
// grandchild's, and no kill by cmd.Process.Pid reaches it.
package agent

import (
	"context"
	"os/exec"
	"syscall"
)

func noKill(q string) error {
	return exec.Command("setsid", "claude", "-p", q).Run() // expect: agent-spawn-without-group
}

func leaderOnly(q string) error {
	cmd := exec.Command("setsid", "-w", "codex", "exec", q) // expect: agent-spawn-without-group
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	return cmd.Wait()
}

func groupKilled(q string) error {
	cmd := exec.Command("/usr/bin/setsid", "claude", "-p", q)
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func contextGroupKilled(ctx context.Context, q string) error {
	cmd := exec.CommandContext(ctx, "setsid", "gemini", "-p", q)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd.Run()
}

func forked(q string) error {
	cmd := exec.Command("setsid", "-f", "aider", "--message", q) // expect: agent-spawn-without-group
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func tool(path string) error {
	return exec.Command("setsid", "gzip", path).Run()
}

// A process that leads a group of its own makes setsid fork: the session is a grandchild's.
func setsidInAGroupLeader(q string) error {
	cmd := exec.Command("setsid", "claude", "-p", q) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}
