# An agent's Python module run by the interpreter (`python -m aider`) is that agent.
import subprocess


def module():
    subprocess.run(["python", "-m", "aider", "--yes"])  # expect: agent-spawn-without-group


def module_after_options():
    subprocess.Popen(["python3.12", "-u", "-m", "aider.main"])  # expect: agent-spawn-without-group


def other_module():
    subprocess.run(["python3", "-m", "pytest", "-k", "aider"])


def code_string():
    subprocess.run(["python", "-c", "print('aider')"])
