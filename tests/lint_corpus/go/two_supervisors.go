// Two types keeping their command in a field of the same name: one type's group kill
// does not count for the other's; programs from a slice variable and strings.Join.
package supervisor

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

const agentBin = "claude"

var codexArgs = []string{"codex", "exec"}

type Session struct {
	cmd *exec.Cmd
}

func (s *Session) Start(ctx context.Context, prompt string) error {
	s.cmd = exec.CommandContext(ctx, agentBin, "-p", prompt)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = 10 * time.Second
	return s.cmd.Start()
}

func (s *Session) Stop() error {
	return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
}

type Leaky struct {
	cmd *exec.Cmd
}

func (l *Leaky) Start(prompt string) error {
	l.cmd = exec.Command("gemini", "-p", prompt) // expect: agent-spawn-without-group
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return l.cmd.Start()
}

func (l *Leaky) Stop() error {
	return l.cmd.Process.Kill()
}

func constSlice(prompt string) error {
	return exec.Command(codexArgs[0], append(codexArgs[1:], prompt)...).Run() // expect: agent-spawn-without-group
}

func literalSlice(prompt string) error {
	argv := []string{agentBin, "-p", prompt}
	return exec.Command(argv[0], argv[1:]...).Run() // expect: agent-spawn-without-group
}

func joined(prompt string) error {
	line := strings.Join([]string{agentBin, "-p", prompt}, " ")
	return exec.Command("sh", "-c", line).Run() // expect: agent-spawn-without-group
}

func notAnAgent(dir string) error {
	tools := []string{"go", "vet"}
	if err := exec.Command(tools[0], tools[1:]...).Run(); err != nil {
		return err
	}
	return exec.Command("sh", "-c", strings.Join([]string{"make", "-C", dir}, " ")).Run()
}
