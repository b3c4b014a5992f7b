// Commands kept in a map (or slice) held by a struct field are reached like a field
// holding one: the method that kills the group of each ends them, and only that.
package agent

import (
	"os/exec"
	"syscall"
)

type Pool struct {
	cmds map[string]*exec.Cmd
}

func (p *Pool) Start(id, prompt string) error {
	cmd := exec.Command("claude", "-p", prompt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmds[id] = cmd
	return nil
}

func (p *Pool) StopAll() {
	for _, c := range p.cmds {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
	}
}

type Leaders struct {
	byID map[string]*exec.Cmd
}

func (l *Leaders) Start(id, prompt string) error {
	cmd := exec.Command("codex", "exec", prompt) // expect: agent-spawn-without-group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	l.byID[id] = cmd
	return cmd.Start()
}

func (l *Leaders) Stop(id string) {
	if c, ok := l.byID[id]; ok && c.Process != nil {
		_ = c.Process.Kill()
	}
}
