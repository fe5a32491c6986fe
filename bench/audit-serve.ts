/**
 * What the decision log and its export cost a server: `toolgate serve` (the build) answering
 * POST /decide at concurrency 64 over loopback keep-alive, without a log, with --log, and with
 * --log --otlp to a loopback collector in this process; and `toolgate check --stdin` over N
 * lines without and with --log. Rounds interleave the variants, so each ratio is against the
 * baseline of the same run. Medians of decisions/s. No assertions.
 * Run: npm run build && npx tsx bench/audit-serve.ts [--seconds S] [--rounds R] [--lines N]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    lines: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '64' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const LINES = Number(values.lines);
const CONCURRENCY = Number(values.concurrency);

const main = path.join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
if (!fs.existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-serve-'));
const ws = path.join(tmp, 'project');
fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
fs.mkdirSync(path.join(ws, '.git'));
fs.writeFileSync(path.join(ws, 'README.md'), '# p\n');
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmp,
  XDG_CONFIG_HOME: path.join(tmp, '.config'),
  XDG_CACHE_HOME: path.join(tmp, '.cache'),
  TOOLGATE_MANAGED_POLICY: path.join(tmp, 'no-managed.yaml'),
};

// The collector: acknowledges every export, counts its log records' bytes, parses nothing.
let exportedBytes = 0;
const collector = http.createServer((req, res) => {
  req.on('data', (c: Buffer) => {
    exportedBytes += c.length;
  });
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const BODIES = [
  { tool: 'Read', input: { file_path: path.join(ws, 'README.md') } },
  { tool: 'Bash', input: { command: 'git status --short' } },
  { tool: 'Bash', input: { command: 'grep -rn TODO src | head -20' } },
  { tool: 'Edit', input: { file_path: path.join(ws, 'src/a.ts'), old_string: 'a', new_string: 'b' } },
].map((b) => JSON.stringify({ ...b, cwd: ws, mode: 'default' }));

interface Variant {
  name: string;
  args: (n: number) => string[];
}
let logNo = 0;
const logArg = () => ['--log', path.join(tmp, `log-${++logNo}.jsonl`)];
const VARIANTS: Variant[] = [
  { name: 'no log', args: () => [] },
  { name: '--log', args: () => logArg() },
  { name: '--log --otlp', args: () => [...logArg(), '--otlp', collectorUrl] },
];

async function serveRate(extra: string[]): Promise<number> {
  const server = spawn(process.execPath, [main, 'serve', '--port', '0', ...extra], {
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
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: '/decide',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let count = 0;
  let measuring = false;
  let stop = false;
  const worker = async (w: number) => {
    for (let i = w; !stop; i++) {
      await post(BODIES[i % BODIES.length]!);
      if (measuring) count++;
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, 1_000)); // warm up
  measuring = true;
  const start = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, SECONDS * 1_000));
  measuring = false;
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const measured = count;
  stop = true;
  await Promise.all(workers);
  agent.destroy();
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  return measured / elapsed;
}

async function checkRate(extra: string[]): Promise<number> {
  const input = `${Array.from({ length: LINES }, (_, i) => BODIES[i % BODIES.length]).join('\n')}\n`;
  const start = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [main, 'check', '--stdin', '--json', ...extra], {
      cwd: ws,
      env,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`check exited ${code}`))));
    child.stdin!.end(input);
  });
  return LINES / (Number(process.hrtime.bigint() - start) / 1e9);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const serve = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
const check = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of VARIANTS) serve.get(v.name)!.push(await serveRate(v.args(r)));
    for (const v of VARIANTS) check.get(v.name)!.push(await checkRate(v.args(r)));
  }
} finally {
  collector.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
const load = os.loadavg()[0]!.toFixed(1);
console.log(
  `\n## bench/audit-serve — median of ${ROUNDS} interleaved rounds (node ${process.version}, ${os.cpus().length} CPUs, load average ${load} at the end)\n`,
);
console.log('| what | decisions/s (median) | rounds | vs no log | vs --log |');
console.log('|---|---|---|---|---|');
for (const [label, m] of [
  [`serve, POST /decide at concurrency ${CONCURRENCY}, ${SECONDS} s`, serve],
  [`check --stdin, ${fmt(LINES)} lines`, check],
] as const) {
  const base = median(m.get('no log')!);
  const logged = median(m.get('--log')!);
  for (const v of VARIANTS) {
    const med = median(m.get(v.name)!);
    console.log(
      `| ${label}, ${v.name} | ${fmt(med)} | ${m.get(v.name)!.map(fmt).join(' / ')} | ${(med / base).toFixed(2)}× | ${v.name === 'no log' ? '' : `${(med / logged).toFixed(2)}×`} |`,
    );
  }
}
console.log(`\n(the collector received ${fmt(exportedBytes / 1e6)} MB of OTLP/JSON)`);
