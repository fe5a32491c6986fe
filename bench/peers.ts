/**
 * bench/peers: Gemini CLI's PolicyEngine `check` beside toolgate's decide(), on the 270 corpus
 * lines, in one process, a round of each in turn, each under its own default policy: Gemini's
 * built-in TOML policies (default approval mode) as its CLI builds them, toolgate's embedded
 * default. Both in the same real repository (a git checkout of toolgate's sources, as
 * bench/decide-repo). Gemini's core is not a dependency of toolgate: install it into a folder
 * of its own first, outside the package, and point TOOLGATE_PEERS_DIR at it (the bench says
 * so and exits 0 when it is missing):
 *   mkdir -p ~/.cache/toolgate-peers && cd ~/.cache/toolgate-peers && npm install @google/gemini-cli-core@0.61.0
 * Run: npx tsx bench/peers.ts [rounds]   (uses the compiled dist/: run `npm run build` first)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { decide } from '../dist/policy/decide.js';
import { policyFromText } from '../dist/policy/policy.js';
import { summarize, table, timeMicros } from './stats.js';

const peers = process.env.TOOLGATE_PEERS_DIR ?? path.join(os.homedir(), '.cache', 'toolgate-peers');
const core = path.join(peers, 'node_modules', '@google', 'gemini-cli-core');
if (!fs.existsSync(core)) {
  console.log(
    `bench/peers: ${core} is missing; install @google/gemini-cli-core there (see the header). Skipped.`,
  );
  process.exit(0);
}
const gemini = async (file: string) =>
  import(pathToFileURL(path.join(core, 'dist', 'src', 'policy', file)).href);
const { PolicyEngine } = await gemini('policy-engine.js');
const { createPolicyEngineConfig } = await gemini('config.js');
const { ApprovalMode } = await gemini('types.js');
const version = (JSON.parse(fs.readFileSync(path.join(core, 'package.json'), 'utf8')) as { version: string })
  .version;

const root = path.resolve(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 10);
const lines = fs
  .readFileSync(path.join(root, 'test', 'fixtures', 'bash-labelled.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { command: string }).command);

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-peers-'));
const tar = execFileSync('git', ['-C', root, 'archive', 'HEAD', 'src', 'test', 'policies', 'package.json'], {
  maxBuffer: 1 << 30,
});
execFileSync('tar', ['-x', '-C', ws], { input: tar });
execFileSync('git', ['init', '-q', ws]);

// Gemini's engine takes the process's directory for its workspace, and logs every check with
// console.debug (its CLI shows that only in debug mode): the repository, and no debug output.
process.chdir(ws);
console.debug = () => undefined;
const engine = new PolicyEngine(
  await createPolicyEngineConfig(
    {},
    ApprovalMode.DEFAULT,
    path.join(core, 'dist', 'src', 'policy', 'policies'),
  ),
);
const geminiCheck = (command: string) =>
  engine.check({ name: 'run_shell_command', args: { command, dir_path: ws } }, undefined);
const policy = await policyFromText('version: 1\nextends: builtin:default\n', { root: ws });
const request = (command: string) => ({
  tool: 'Bash',
  input: { command },
  cwd: ws,
  mode: 'default' as const,
});

/** Microseconds an async call takes, awaited (Gemini's check is async). */
async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1000;
}

for (let i = 0; i < 3; i++)
  for (const l of lines) {
    await geminiCheck(l);
    decide(request(l), policy);
  }
const g: number[] = [];
const t: number[] = [];
const perLine = lines.map(() => ({ g: [] as number[], t: [] as number[] }));
// Each round runs every line through one engine, then through the other (which first
// alternates): interleaving line by line had each engine pay for the other's garbage and caches.
for (let r = 0; r < rounds; r++) {
  const geminiRound = async () => {
    for (const [i, l] of lines.entries()) {
      const a = await timeAsync(() => geminiCheck(l));
      g.push(a);
      perLine[i]!.g.push(a);
    }
  };
  const toolgateRound = () => {
    for (const [i, l] of lines.entries()) {
      const req = request(l);
      const b = timeMicros(() => decide(req, policy));
      t.push(b);
      perLine[i]!.t.push(b);
    }
  };
  if (r % 2 === 0) {
    await geminiRound();
    toolgateRound();
  } else {
    toolgateRound();
    await geminiRound();
  }
}
const gs = summarize(g);
const ts = summarize(t);
const ratios = perLine.map((s) => summarize(s.g).median / summarize(s.t).median);
console.log(
  `## bench/peers — ${lines.length} corpus lines x ${rounds} rounds, each engine's default policy, in a repository (µs)\n`,
);
console.log(
  table(
    ['engine', 'median', 'p99', 'mean'],
    [
      [`Gemini CLI ${version} PolicyEngine.check`, gs.median, gs.p99, gs.mean],
      ['toolgate decide()', ts.median, ts.p99, ts.mean],
    ],
  ),
);
console.log(
  `\nGemini / toolgate: ${(gs.median / ts.median).toFixed(2)}x of the medians, ${summarize(ratios).median.toFixed(2)}x line by line (goal: toolgate >= 4x faster)`,
);
process.chdir(root);
fs.rmSync(ws, { recursive: true, force: true });
