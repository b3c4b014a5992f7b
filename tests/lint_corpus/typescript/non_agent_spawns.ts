import { spawn, execSync } from 'node:child_process';

// This module builds the claude-dashboard package; it never runs an agent.
const PACKAGE = 'claude-dashboard';

export function build(): void {
  execSync(`npm run build --workspace ${PACKAGE}`, { stdio: 'inherit' });
}

export function serve(port: number) {
  return spawn('node', ['dist/server.js', '--name', 'claude'], {
    env: { ...process.env, PORT: String(port) },
  });
}

export function docker(tag: string) {
  return spawn('docker', ['build', '-t', `acme/claude-proxy:${tag}`, '.'], { stdio: 'inherit' });
}
