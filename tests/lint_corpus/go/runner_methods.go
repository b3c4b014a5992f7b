// The shape of agent supervisors: a struct holds the command, one method starts it and
// another stops it.
package agents

import (
	"os/exec"
	"syscall"
)

type Session struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// Compliant: Start makes the group, Stop kills it.
func (s *Session) Start(prompt string) error {
	s.cmd = exec.Command("claude", "-p", prompt)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return s.cmd.Start()
}

func (s *Session) Stop() error {
	return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
}

type Worker struct {
	proc *exec.Cmd
}

// The group is made, but Stop kills only the leader.
func (w *Worker) Start(prompt string) error {
	w.proc = exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	w.proc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return w.proc.Start()
}

func (w *Worker) Stop() error {
	return w.proc.Process.Kill()
}

type Pane struct {
	agent *exec.Cmd
}

// Built in a struct literal; compliant through the methods that use the field.
func NewPane(prompt string) *Pane {
	return &Pane{agent: exec.Command("gemini", "-p", prompt)}
}

func (p *Pane) Run() error {
	p.agent.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	defer syscall.Kill(-p.agent.Process.Pid, syscall.SIGKILL)
	return p.agent.Run()
}

type Bare struct {
	job *exec.Cmd
}

func NewBare(prompt string) *Bare {
	return &Bare{job: exec.Command("aider", "--message", prompt)} // expect: agent-spawn-without-group
}

func (b *Bare) Run() error {
	return b.job.Run()
}

type Supervisor struct {
	pid  int
	cmds map[string]*exec.Cmd
}

// Compliant: the pid kept in a field, the group killed by the method that stops it.
func (s *Supervisor) Launch(prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.pid = cmd.Process.Pid
	return nil
}

func (s *Supervisor) Shutdown() {
	if s.pid > 0 {
		_ = syscall.Kill(-s.pid, syscall.SIGTERM)
	}
}

// Kept in a map; nothing kills its group.
func (s *Supervisor) Add(name, prompt string) {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmds[name] = cmd
	_ = cmd.Start()
}
