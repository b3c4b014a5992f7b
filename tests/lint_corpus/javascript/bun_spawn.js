#!/usr/bin/env bun
// Bun has no detached option: an agent started with Bun.spawn shares our group.

const prompt = Bun.argv[2] ?? 'triage open issues';

const proc = Bun.spawn(['claude', '-p', prompt], { stdout: 'pipe' }); // expect: agent-spawn-without-group
const timer = setTimeout(() => proc.kill(), 600_000);
const text = await new Response(proc.stdout).text();
clearTimeout(timer);

const git = Bun.spawnSync(['git', 'status', '--short']);
console.log(text, git.stdout.toString());
