import subprocess


def defaults_are_no_group(prompt):
    # `process_group=None` and `start_new_session=False` are the defaults: no new group.
    subprocess.run(["claude", "-p", prompt], process_group=None)  # expect: agent-spawn-without-group
    subprocess.run(["claude", "-p", prompt], start_new_session=False)  # expect: agent-spawn-without-group
    subprocess.run(["claude", "-p", prompt], process_group=0)  # expect: agent-spawn-without-group
