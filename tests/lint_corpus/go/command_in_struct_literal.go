// A command put into a struct literal's field (`&Session{cmd: cmd}`, `s := Session{cmd:
// cmd}`) is held by the struct: the methods using that field are in reach of the spawn.
package agents

import (
	"os/exec"
	"syscall"
)

type Session struct {
	cmd *exec.Cmd
}

func Open(q string) (*Session, error) {
	cmd := exec.Command("claude", "-p", q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Session{cmd: cmd}, nil
}

func OpenValue(q string) *Session {
	cmd := exec.Command("codex", "exec", q)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()
	s := Session{cmd: cmd}
	return &s
}

func (s *Session) Close() error {
	return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// The leader alone is killed through the literal's field: still a finding.
type Leader struct {
	proc *exec.Cmd
}

func OpenLeader(q string) *Leader {
	proc := exec.Command("claude", "-p", q) // expect: agent-spawn-without-group
	proc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = proc.Start()
	return &Leader{proc: proc}
}

func (l *Leader) Close() error {
	return l.proc.Process.Kill()
}

// A literal field nothing kills.
type Kept struct {
	job *exec.Cmd
}

func Keep(q string) Kept {
	job := exec.Command("gemini", "-p", q) // expect: agent-spawn-without-group
	job.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	_ = job.Start()
	return Kept{job: job}
}
