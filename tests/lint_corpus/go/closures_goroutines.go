// Spawns in closures and goroutines; kills from a goroutine watching a context.
package agents

import (
	"context"
	"os/exec"
	"sync"
	"syscall"
)

func fanOut(prompts []string) {
	var wg sync.WaitGroup
	for _, p := range prompts {
		wg.Add(1)
		go func(prompt string) {
			defer wg.Done()
			_ = exec.Command("claude", "-p", prompt).Run() // expect: agent-spawn-without-group
		}(p)
	}
	wg.Wait()
}

var launch = func(prompt string) error {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.Run()
}

// Compliant: the goroutine kills the group when the context ends.
func watched(ctx context.Context, prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	return cmd.Wait()
}

// Compliant: spawned inside a closure of the function that kills the group.
func closureSpawn(prompt string) error {
	var cmd *exec.Cmd
	start := func() error {
		cmd = exec.Command("gemini", "-p", prompt)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return cmd.Start()
	}
	if err := start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}
