// Commands kept in struct fields are tied to their spawn like local variables: a kill
// naming one field's command (`-p.a.Process.Pid`) ends that child, not the one in the
// other field, in the method that starts them and in the methods that stop them.
package agents

import (
	"os/exec"
	"syscall"
)

type Pair struct {
	a, b *exec.Cmd
}

func (p *Pair) Start(q string) error {
	p.a = exec.Command("claude", "-p", q)
	p.a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.b = exec.Command("codex", "exec", q) // expect: agent-spawn-without-group
	p.b.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.a.Start(); err != nil {
		return err
	}
	return p.b.Start()
}

func (p *Pair) Stop() error {
	syscall.Kill(-p.a.Process.Pid, syscall.SIGKILL)
	return p.b.Wait()
}

type Both struct {
	first, second *exec.Cmd
}

func (s *Both) Start(q string) error {
	s.first = exec.Command("gemini", "-p", q)
	s.first.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.second = exec.Command("aider", "--message", q)
	s.second.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := s.first.Start(); err != nil {
		return err
	}
	return s.second.Start()
}

func (s *Both) Stop() {
	syscall.Kill(-s.first.Process.Pid, syscall.SIGKILL)
	syscall.Kill(-s.second.Process.Pid, syscall.SIGKILL)
}

type Inline struct {
	x, y *exec.Cmd
}

func (r *Inline) Run(q string) error {
	r.x = exec.Command("claude", "-p", q)
	r.x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.y = exec.Command("goose", "run", "-t", q) // expect: agent-spawn-without-group
	r.y.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer syscall.Kill(-r.x.Process.Pid, syscall.SIGKILL)
	if err := r.x.Start(); err != nil {
		return err
	}
	if err := r.y.Start(); err != nil {
		return err
	}
	return r.y.Wait()
}

type Literal struct {
	lead, helper *exec.Cmd
}

func NewLiteral(q string) *Literal {
	l := &Literal{
		lead:   exec.Command("claude", "-p", q),
		helper: exec.Command("codex", "exec", q), // expect: agent-spawn-without-group
	}
	l.lead.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	l.helper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return l
}

func (l *Literal) Stop() {
	syscall.Kill(-l.lead.Process.Pid, syscall.SIGKILL)
	l.helper.Wait()
}
