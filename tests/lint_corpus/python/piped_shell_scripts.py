# A `sh -c` script that pipes text into a shell, or is written `$'...'`, is read as the
# shell reads it: the printed text is the inner shell's script, and `\n` ends a command.
import subprocess


def piped():
    subprocess.run(["bash", "-c", "echo 'claude -p hi' | bash -s"])  # expect: agent-spawn-without-group


def ansi_c():
    subprocess.run(["bash", "-c", "bash -c $'cd /r\\nclaude -p hi'"])  # expect: agent-spawn-without-group


def printf_shell_true():
    subprocess.run("printf 'cd /r\\nclaude -p hi\\n' | bash", shell=True)  # expect: agent-spawn-without-group


def teed():
    subprocess.run(["bash", "-c", "echo 'claude -p hi' | tee prompt.txt"])


def grepped():
    subprocess.run("printf 'claude -p hi\\n' | grep claude", shell=True)
