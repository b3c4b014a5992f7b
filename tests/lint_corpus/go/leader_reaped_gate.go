// A group kill gated on the leader not having been reaped never runs when the leader
// exits first: exactly when its helpers are left behind.
package agents

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

func killWhileAlive(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	return cmd.Wait()
}

type Runner struct {
	cmd *exec.Cmd
}

func (r *Runner) Start(ctx context.Context, prompt string) error {
	r.cmd = exec.CommandContext(ctx, "codex", "exec", prompt) // expect: agent-spawn-without-group
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return r.cmd.Start()
}

func (r *Runner) Stop() error {
	if r.cmd.ProcessState != nil && r.cmd.ProcessState.Exited() {
		return nil
	}
	return syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
}

func killAfterWait(prompt string) error {
	cmd := exec.Command("gemini", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(10*time.Minute, func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	defer timer.Stop()
	err := cmd.Wait()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}

type Worker struct {
	cmd *exec.Cmd
}

func (w *Worker) Start(prompt string) error {
	w.cmd = exec.Command("aider", "--message", prompt)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return w.cmd.Start()
}

func (w *Worker) Stop() error {
	if w.cmd == nil || w.cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
}
