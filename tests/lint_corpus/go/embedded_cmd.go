// A struct embedding the command (`type Agent struct{ *exec.Cmd }`): the variable the
// literal is bound to has the command's fields and methods (`a.SysProcAttr`,
// `a.Start()`), and the type's methods reach it through their receiver.
package agent

import (
	"os/exec"
	"syscall"
)

type Agent struct{ *exec.Cmd }

func Start(q string) *Agent {
	a := &Agent{exec.Command("claude", "-p", q)}
	a.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	a.Start()
	return a
}

func (a *Agent) Stop() { syscall.Kill(-a.Process.Pid, syscall.SIGKILL) }

type Runner struct {
	*exec.Cmd
	id int
}

func StartRunner(q string) *Runner {
	r := &Runner{Cmd: exec.Command("codex", "exec", q)}
	r.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.Start()
	return r
}

func (r *Runner) Stop() { syscall.Kill(-r.Process.Pid, syscall.SIGTERM) }

type Leader struct{ *exec.Cmd }

func StartLeader(q string) *Leader {
	l := &Leader{exec.Command("gemini", "-p", q)} // expect: agent-spawn-without-group
	l.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	l.Start()
	return l
}

func (l *Leader) Stop() { l.Process.Kill() }

type Ungrouped struct{ *exec.Cmd }

func StartUngrouped(q string) *Ungrouped {
	u := &Ungrouped{exec.Command("claude", q)} // expect: agent-spawn-without-group
	u.Start()
	return u
}

func (u *Ungrouped) Stop() { syscall.Kill(-u.Process.Pid, syscall.SIGKILL) }

type Session struct{ *exec.Cmd }

// The literal returned: the type's methods set the group and kill it.
func NewSession(q string) *Session {
	return &Session{exec.Command("claude", "-p", q)}
}

func (s *Session) Run() error {
	s.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-s.Process.Pid, syscall.SIGKILL)
	return s.Wait()
}

type Job struct{ *exec.Cmd }

func NewJob(q string) *Job {
	return &Job{exec.Command("codex", "exec", q)} // expect: agent-spawn-without-group
}

func (j *Job) Run() error {
	j.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return j.Cmd.Run()
}

type Task struct{ *exec.Cmd }

// The embedded field named: `t.Cmd.SysProcAttr` is the command's.
func StartTask(q string) *Task {
	t := &Task{exec.Command("claude", "-p", q)}
	t.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Start()
	return t
}

func (t *Task) Stop() { syscall.Kill(-t.Process.Pid, syscall.SIGKILL) }
