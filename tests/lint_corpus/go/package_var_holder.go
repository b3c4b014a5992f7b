// A command kept in a package variable (`var agentCmd *exec.Cmd`, its pid, a package map
// or slice of commands) is in reach of every function of the file using that variable:
// Stop() killing its group counts, Stop() killing only the leader does not. A local of the
// same name shadows it: the package variable's Stop() is no kill of the local's group.
package agents

import (
	"os/exec"
	"sync"
	"syscall"
)

var agentCmd *exec.Cmd

func Start(p string) error {
	agentCmd = exec.Command("claude", "-p", p)
	agentCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return agentCmd.Start()
}

func Stop() {
	if agentCmd != nil && agentCmd.Process != nil {
		_ = syscall.Kill(-agentCmd.Process.Pid, syscall.SIGKILL)
	}
}

var running = map[string]*exec.Cmd{}

func StartNamed(id, p string) error {
	cmd := exec.Command("codex", "exec", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	running[id] = cmd
	return nil
}

func StopAll() {
	for id, c := range running {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		delete(running, id)
	}
}

var geminiCmd *exec.Cmd

func StartGemini(p string) error {
	geminiCmd = exec.Command("gemini", "-p", p) // expect: agent-spawn-without-group
	geminiCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return geminiCmd.Start()
}

func StopGemini() {
	if geminiCmd != nil && geminiCmd.Process != nil {
		_ = geminiCmd.Process.Kill()
	}
}

func RunShadowed(p string) error {
	agentCmd := exec.Command("goose", "run", p) // expect: agent-spawn-without-group
	agentCmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return agentCmd.Run()
}

var (
	mu       sync.Mutex
	agentPid int
)

func StartPid(p string) error {
	cmd := exec.Command("opencode", "run", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	mu.Lock()
	agentPid = cmd.Process.Pid
	mu.Unlock()
	return nil
}

func StopPid() {
	mu.Lock()
	defer mu.Unlock()
	if agentPid > 0 {
		_ = syscall.Kill(-agentPid, syscall.SIGKILL)
	}
}

var cmds []*exec.Cmd

func StartMany(p string) error {
	cmd := exec.Command("amp", p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmds = append(cmds, cmd)
	return cmd.Start()
}

func StopMany() {
	for _, c := range cmds {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
