import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { loadPolicyFiles } from '../../src/policy/layers.js';
import type { Mode } from '../../src/policy/mode.js';
import { protectedEntryOf } from '../../src/policy/protected.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { removeSpill } from '../../src/sandbox/output.js';
import { runSandboxed } from '../../src/sandbox/run.js';
import { loadCorpus } from '../helpers/corpus.js';
import { snapshot } from '../helpers/tree-snapshot.js';

/**
 * Issue #13's done-when: every corpus line a decision ALLOWS, run inside the jail of that
 * decision (bwrap, capabilities dropped, no network, a throwaway tree), writes nothing outside
 * what the verdict allowed (nothing at all for a read-only jail; the workspace minus protected
 * paths otherwise) and prints no byte of a Read-denied file. Four modes, the oracle-labelled
 * corpus and the hostile ones. CI runs a deterministic sample (the first SAMPLE allowed lines
 * per mode by sha256 of mode and line) to stay within about a minute on two shared cores;
 * TOOLGATE_CORPUS_JAIL=all runs every allowed line.
 */
const probe = await probeBwrap();
const SAMPLE = process.env.TOOLGATE_CORPUS_JAIL === 'all' ? Number.POSITIVE_INFINITY : 20;
const MODES: Mode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];
const CANARY = 'CANARY-7f3e1d-SECRET';
const CORPORA = ['bash-oracle-labelled.jsonl', 'bash-adversarial.jsonl', 'policy-bypasses.jsonl'];
const lines = [...new Set(CORPORA.flatMap((f) => loadCorpus(f).map((l) => l.command)))].filter(
  (l) => typeof l === 'string' && !l.includes('\0'),
);

/**
 * A throwaway world outside /tmp (the jail's /tmp is private, so a tree there would hide
 * writes), made afresh in the same place for every line: the policy's workspace is its `ws`.
 */
function world(at?: string) {
  const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
  const base = at ?? fs.realpathSync(fs.mkdtempSync(path.join(parent, 'tg-corpus-')));
  fs.mkdirSync(base, { recursive: true });
  const ws = path.join(base, 'ws');
  const home = path.join(base, 'home');
  const put = (rel: string, text: string) => {
    const p = path.join(base, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  };
  put('ws/a.txt', 'one\ntwo\n');
  put('ws/src/main.ts', 'export const x = 1;\n');
  put('ws/.env', `TOKEN=${CANARY}\n`);
  put('ws/pkg/deep/.env', `TOKEN=${CANARY}\n`);
  put('ws/.git/config', '[core]\n');
  put('ws/.git/HEAD', 'ref: refs/heads/main\n');
  fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  put('home/.bashrc', '# rc\n');
  put('outside/keep.txt', 'keep\n');
  return { base, ws, home };
}

const rank = (mode: string, line: string) => createHash('sha256').update(`${mode}\0${line}`).digest('hex');

describe.skipIf(!probe.available)('every allowed corpus line, run in its jail', () => {
  it.each(MODES)(
    'mode %s: no write outside what the verdict allowed, no read of a denied file',
    async (mode) => {
      const w = world();
      // A policy file on disk: `extends` is followed by the layer reader (policyFromText does not).
      const policyFile = `${w.base}-policy.yaml`;
      fs.writeFileSync(
        policyFile,
        'version: 1\nextends: builtin:default\nsandbox: { os: required, timeoutMs: 3000, maxOutputBytes: 1000000 }\n',
      );
      const policy = loadPolicyFiles([{ file: policyFile, layer: 'cli' }]);
      fs.rmSync(policyFile);
      const allowed = lines
        .map((command) => ({ command, rank: rank(mode, command) }))
        .sort((a, b) => (a.rank < b.rank ? -1 : 1))
        .map((l) => l.command);
      const problems: string[] = [];
      let ran = 0;
      let offline = 0;
      for (const command of allowed) {
        if (ran >= SAMPLE) break;
        const t = world(w.base);
        try {
          const d = decide({ tool: 'Bash', input: { command }, cwd: t.ws, mode }, policy);
          if (d.behavior !== 'allow' || d.sandbox === undefined) continue;
          // Hostile lines never get the network here (they run only with it unshared): a line
          // the decision grants it (bypassPermissions lets `git push` connect) runs without.
          if (d.sandbox.network) offline += 1;
          const profile = { ...d.sandbox, network: false };
          if (d.facts.readOnly) expect(profile.writableRoots, command).toEqual([]);
          ran += 1;
          const before = snapshot(t.base);
          const r = await runSandboxed({
            script: command,
            cwd: t.ws,
            profile,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.home },
          });
          if (!r.ok) continue; // refused before it ran (a jail that cannot be built): nothing ran
          if (r.output.spillPath) await removeSpill(r.output.spillPath);
          if (r.output.inline.includes(CANARY)) problems.push(`${mode}: ${command}: printed a denied file`);
          const after = snapshot(t.base);
          const changed = new Set(
            [...Object.keys(before), ...Object.keys(after)].filter((k) => before[k] !== after[k]),
          );
          for (const rel of changed) {
            const abs = path.join(t.base, rel);
            const writable = profile.writableRoots.some((root) => abs.startsWith(`${root}/`));
            const entry = protectedEntryOf(abs, profile.writableRoots);
            if (!writable || entry !== undefined)
              problems.push(`${mode}: ${command}: changed ${rel}${entry ? ` (protected ${entry})` : ''}`);
          }
        } finally {
          fs.rmSync(t.base, { recursive: true, force: true });
        }
      }
      if (offline > 0) console.info(`${mode}: ${offline} of ${ran} lines granted the network ran without it`);
      fs.rmSync(w.base, { recursive: true, force: true });
      expect(ran).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    },
    240_000,
  );
});
