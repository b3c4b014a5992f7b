// A command built by hand, &exec.Cmd{Path: ..., Args: ...}, runs its Path with Args[1:]:
// it needs a group and a group kill like exec.Command's.
package agents

import (
	"os/exec"
	"syscall"
)

func askByHand(q string) error {
	cmd := &exec.Cmd{Path: "/usr/local/bin/claude", Args: []string{"claude", "-p", q}} // expect: agent-spawn-without-group
	return cmd.Run()
}

func askByArgsOnly(q string) error {
	cmd := exec.Cmd{Args: []string{"codex", "exec", q}} // expect: agent-spawn-without-group
	return cmd.Run()
}

func askInAGroupNobodyKills(q string) error {
	cmd := &exec.Cmd{ // expect: agent-spawn-without-group
		Path:        "/usr/local/bin/claude",
		Args:        []string{"claude", "-p", q},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	return cmd.Run()
}

func askInAGroup(q string) error {
	cmd := &exec.Cmd{
		Path:        "/usr/local/bin/claude",
		Args:        []string{"claude", "-p", q},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func askInAGroupSetLater(q string) error {
	cmd := &exec.Cmd{Path: "/usr/local/bin/claude", Args: []string{"claude", "-p", q}}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Wait()
}

func notAnAgent(q string) error {
	cmd := &exec.Cmd{Path: "/usr/bin/grep", Args: []string{"grep", "-r", q}}
	return cmd.Run()
}
