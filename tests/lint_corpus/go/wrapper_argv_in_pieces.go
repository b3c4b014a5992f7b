// A wrapper and its agent given in different pieces: the argv is one command line.
package agents

import (
	"os/exec"
	"syscall"
)

func AsAgentUser(q string) error {
	argv := []string{"sudo", "-u", "agent", "claude", "-p", q}
	return exec.Command(argv[0], argv[1:]...).Run() // expect: agent-spawn-without-group
}

func EnvArgsSpread(q string) error {
	args := []string{"NO_COLOR=1", "claude", "-p", q}
	return exec.Command("env", args...).Run() // expect: agent-spawn-without-group
}

func ShellScriptSpread() error {
	script := []string{"-c", "cd /work && codex exec fix"}
	return exec.Command("sh", script...).Run() // expect: agent-spawn-without-group
}

// The same argv with both halves: a new group and its kill.
func AsAgentUserGrouped(q string) error {
	argv := []string{"nohup", "claude", "-p", q}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

// Wrappers in front of a tool that is no agent.
func Tools() error {
	argv := []string{"nice", "-n", "10", "go", "test", "./..."}
	if err := exec.Command(argv[0], argv[1:]...).Run(); err != nil {
		return err
	}
	args := []string{"GOFLAGS=-mod=mod", "go", "vet"}
	return exec.Command("env", args...).Run()
}
