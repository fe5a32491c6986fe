/**
 * bench/hook: what a decision costs the agent, measured in one run against the built command.
 *
 * 1. `toolgate hook` starts a fresh node process for every tool call. Wall time of
 *    `node dist/cli/main.js hook` for a Read and a Bash request, on the embedded default
 *    policy and on a project policy file, untrusted and trusted (`toolgate trust`: the hook then
 *    reads the user's trust store and hashes the file on every call; its cost is the trusted
 *    row against the default one), and with a decision log, and with every cache off,
 *    and with `--warm` (the call handed to the warm process the first call started), against
 *    `node -e ''` started the same way. Goal: <= 1.5x the baseline.
 * 2. `toolgate serve`, started once: latency of POST /hook and POST /decide over loopback HTTP
 *    with keep-alive, for the same requests. Goal: < 1 ms median.
 *
 * Run: npm run build && npx tsx bench/hook.ts [rounds] [requests]
 * (defaults: 40 processes per subject, 2000 HTTP requests per subject). Subjects interleave
 * round by round so machine noise hits them alike. Every process gets a small environment of
 * its own (PATH, HOME, XDG dirs): variables such as NODE_EXTRA_CA_CERTS cost node more at
 * start-up than the whole decision, and would flatter the ratio. The hook keeps its caches
 * under $XDG_CACHE_HOME/toolgate, a fresh directory here that the warm-up runs fill.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { summarize, table } from './stats.js';

const rounds = Number(process.argv[2] ?? 40);
const requests = Number(process.argv[3] ?? 2000);
const main = path.join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-hook-')));
const ws = path.join(tmp, 'ws');
const project = path.join(tmp, 'project');
// the same policy file, trusted by the user (below): its allow rules apply
const trusted = path.join(tmp, 'trusted');
for (const dir of [ws, project, trusted, path.join(tmp, 'config')]) fs.mkdirSync(dir, { recursive: true });
for (const dir of [ws, project, trusted]) fs.writeFileSync(path.join(dir, 'README.md'), '# bench\n');
for (const dir of [project, trusted]) {
  fs.mkdirSync(path.join(dir, '.toolgate'));
  fs.writeFileSync(
    path.join(dir, '.toolgate', 'policy.yaml'),
    [
      'version: 1',
      'extends: [builtin:default]',
      'rules:',
      '  - allow: ["Bash(npm run test *)", "Bash(npm test)", "Bash(make bench)"]',
      '  - ask: "Bash(git push *)"',
      '  - id: no-secrets',
      '    deny: ["Read(./secrets/**)"]',
      '    reason: secrets stay out',
      '',
    ].join('\n'),
  );
}

// No user, managed or stray policy from this machine; a cache of the bench's own.
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmp,
  XDG_CONFIG_HOME: path.join(tmp, 'config'),
  XDG_CACHE_HOME: path.join(tmp, 'cache'),
  TOOLGATE_MANAGED_POLICY: path.join(tmp, 'no-managed-policy.yaml'),
  // a warm process the bench fails to stop leaves soon by itself
  TOOLGATE_WARM_IDLE_MS: '60000',
};

// Trusted as a user does it: the real `toolgate trust` in the project.
const trustRun = spawnSync(process.execPath, [main, 'trust'], { cwd: trusted, env, encoding: 'utf8' });
if (trustRun.status !== 0) throw new Error(`toolgate trust: exit ${trustRun.status}\n${trustRun.stderr}`);

const hookJson = (cwd: string, tool: string, input: unknown) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: path.join(tmp, 'transcript.jsonl'),
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    permission_mode: 'default',
  });
const BASH = 'git status && cat README.md | head';
const cases = {
  Read: (cwd: string) => hookJson(cwd, 'Read', { file_path: path.join(cwd, 'README.md') }),
  Bash: (cwd: string) => hookJson(cwd, 'Bash', { command: BASH }),
  // BASH is a simple line, read without tree-sitter (src/bash/simple-syntax.ts); this one needs
  // the parser, and so loads its two native addons.
  BashParsed: (cwd: string) => hookJson(cwd, 'Bash', { command: 'echo "$HOME" | head -c 40' }),
};

interface ProcSubject {
  name: string;
  args: string[];
  input?: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
}
const procs: ProcSubject[] = [
  { name: "node -e ''", args: ['-e', ''], cwd: ws },
  { name: 'hook Read (default policy)', args: [main, 'hook'], input: cases.Read(ws), cwd: ws },
  { name: 'hook Bash (default policy)', args: [main, 'hook'], input: cases.Bash(ws), cwd: ws },
  {
    name: 'hook Bash, a line tree-sitter parses',
    args: [main, 'hook'],
    input: cases.BashParsed(ws),
    cwd: ws,
  },
  { name: 'hook Read (project policy)', args: [main, 'hook'], input: cases.Read(project), cwd: project },
  { name: 'hook Bash (project policy)', args: [main, 'hook'], input: cases.Bash(project), cwd: project },
  {
    name: 'hook Bash (trusted project policy)',
    args: [main, 'hook'],
    input: cases.Bash(trusted),
    cwd: trusted,
  },
  {
    name: 'hook Bash (default, --log FILE)',
    args: [main, 'hook', '--log', path.join(tmp, 'decisions.jsonl')],
    input: cases.Bash(ws),
    cwd: ws,
  },
  // --warm: the call goes to the warm process the first (warm-up) call started.
  {
    name: 'hook --warm Read (default policy)',
    args: [main, 'hook', '--warm'],
    input: cases.Read(ws),
    cwd: ws,
  },
  {
    name: 'hook --warm Bash (default policy)',
    args: [main, 'hook', '--warm'],
    input: cases.Bash(ws),
    cwd: ws,
  },
  {
    name: 'hook --warm Bash (project policy)',
    args: [main, 'hook', '--warm'],
    input: cases.Bash(project),
    cwd: project,
  },
  {
    name: 'hook --warm Bash (trusted project policy)',
    args: [main, 'hook', '--warm'],
    input: cases.Bash(trusted),
    cwd: trusted,
  },
  {
    name: 'hook --warm Bash (default, --log FILE)',
    args: [main, 'hook', '--warm', '--log', path.join(tmp, 'decisions-warm.jsonl')],
    input: cases.Bash(ws),
    cwd: ws,
  },
  {
    name: 'hook Bash (default, caches off)',
    args: [main, 'hook'],
    input: cases.Bash(ws),
    cwd: ws,
    env: { ...env, TOOLGATE_CACHE: 'off' },
  },
];

/** The warm processes the --warm subjects started (their command line names this bench's directory). */
function stopWarmProcesses(): void {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tmp)) process.kill(Number(pid));
    } catch {}
  }
}

/** Wall milliseconds of one process, from spawn to exit, as the agent waits for it. */
function runOnce(s: ProcSubject): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, s.args, {
    cwd: s.cwd,
    env: s.env ?? env,
    input: s.input ?? '',
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${s.name}: exit ${r.status}\n${r.stderr}`);
  if (s.input !== undefined && !r.stdout.includes('"permissionDecision"'))
    throw new Error(`${s.name}: no decision in ${JSON.stringify(r.stdout)}`);
  return wall;
}

// The trusted row must measure a trusted file: its allow decides `make bench` (which the
// default asks for), the untrusted one's does not.
const decisionOf = (cwd: string) =>
  spawnSync(process.execPath, [main, 'hook'], {
    cwd,
    env,
    input: hookJson(cwd, 'Bash', { command: 'make bench' }),
    encoding: 'utf8',
  }).stdout.match(/"permissionDecision":"(\w+)"/)?.[1];
if (decisionOf(trusted) !== 'allow' || decisionOf(project) === 'allow')
  throw new Error(
    `make bench: trusted ${decisionOf(trusted)}, untrusted ${decisionOf(project)}; want allow, not allow`,
  );

// Warm the page cache, the compiled-policy cache and V8's code cache before measuring; the
// first --warm call starts the warm process, which must be listening before measuring.
for (let i = 0; i < 3; i++) for (const s of procs) runOnce(s);
const warmDir = path.join(tmp, 'cache', 'toolgate', 'warm');
for (let i = 0; i < 100 && !(fs.existsSync(warmDir) && fs.readdirSync(warmDir).length > 0); i++)
  await new Promise((r) => setTimeout(r, 50));
for (const s of procs) runOnce(s);
const walls = new Map<string, number[]>(procs.map((s) => [s.name, []]));
for (let r = 0; r < rounds; r++) for (const s of procs) walls.get(s.name)!.push(runOnce(s));
const baseline = summarize(walls.get(procs[0]!.name)!);
const procRows = procs.map((s) => {
  const w = summarize(walls.get(s.name)!);
  return [s.name, w.median, w.p99, `${(w.median / baseline.median).toFixed(2)}x`];
});

// --- serve ---------------------------------------------------------------------------------
const server = spawn(process.execPath, [main, 'serve', '--port', '0'], {
  cwd: ws,
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const listening = await new Promise<string>((resolve, reject) => {
  server.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
  readline.createInterface({ input: server.stdout! }).once('line', (line) => {
    resolve((JSON.parse(line) as { listening: string }).listening);
  });
});
const url = new URL(listening);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(route: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: route,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`${route}: HTTP ${res.statusCode} ${text}`));
          else resolve(text);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const decideJson = (tool: string, input: unknown) =>
  JSON.stringify({ tool, input, cwd: ws, mode: 'default' });
const httpSubjects: { name: string; route: string; body: string }[] = [
  { name: 'POST /hook Read', route: '/hook', body: cases.Read(ws) },
  { name: 'POST /hook Bash', route: '/hook', body: cases.Bash(ws) },
  {
    name: 'POST /decide Read',
    route: '/decide',
    body: decideJson('Read', { file_path: path.join(ws, 'README.md') }),
  },
  { name: 'POST /decide Bash', route: '/decide', body: decideJson('Bash', { command: BASH }) },
];
for (let i = 0; i < 300; i++) for (const s of httpSubjects) await post(s.route, s.body);
const lat = new Map<string, number[]>(httpSubjects.map((s) => [s.name, []]));
for (let i = 0; i < requests; i++) {
  for (const s of httpSubjects) {
    const start = process.hrtime.bigint();
    await post(s.route, s.body);
    lat.get(s.name)!.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}
agent.destroy();
server.kill('SIGTERM');
stopWarmProcesses();
const httpRows = httpSubjects.map((s) => {
  const l = summarize(lat.get(s.name)!);
  return [s.name, l.median, l.p99];
});

console.log(
  `## bench/hook — one process per call, ${rounds} rounds (node ${process.version}, ${os.cpus().length} CPUs)\n`,
);
console.log(table(['subject', 'wall median ms', 'wall p99 ms', 'ratio (median)'], procRows));
const medianOf = (name: string) => summarize(walls.get(name)!).median;
const ratio = (a: string, b: string) => (medianOf(a) / medianOf(b)).toFixed(2);
const trustRow = (mode: string) =>
  `hook${mode}: ${ratio(`hook${mode} Bash (trusted project policy)`, `hook${mode} Bash (default policy)`)}x the default, ` +
  `${ratio(`hook${mode} Bash (trusted project policy)`, `hook${mode} Bash (project policy)`)}x the same file untrusted`;
console.log(
  '\nA trusted project policy (trust store read, file hashed, its allows on top of the default), ' +
    `medians of this run: ${trustRow('')}; ${trustRow(' --warm')}.`,
);
console.log("\nGoal: hook wall median <= 1.5x node -e ''.\n");
console.log(`## bench/hook — toolgate serve over loopback HTTP keep-alive, ${requests} requests each\n`);
console.log(table(['request', 'median ms', 'p99 ms'], httpRows));
console.log('\nGoal: median < 1 ms.');
fs.rmSync(tmp, { recursive: true, force: true });
