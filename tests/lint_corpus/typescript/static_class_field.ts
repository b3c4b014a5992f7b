// A static class field read through the class's name, typed.
import { spawn } from 'child_process';

class Agent {
  static readonly BIN: string = 'claude';
  private static GIT = 'git';
  static start(prompt: string) {
    return spawn(Agent.BIN, ['-p', prompt]); // expect: agent-spawn-without-group
  }
  static status() {
    return spawn(Agent.GIT, ['status']);
  }
}
