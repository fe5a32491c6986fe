import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorSet } from '../../src/policy/anchors.js';
import { decide } from '../../src/policy/decide.js';
import type { Decision } from '../../src/policy/decision.js';
import { DecisionFs } from '../../src/policy/decision-fs.js';
import { type FileSystemView, nodeFileSystem, realpathOfLongestPrefix } from '../../src/policy/fs-view.js';
import type { Mode } from '../../src/policy/mode.js';
import {
  ALL_MODES,
  bash,
  type Call,
  compile,
  edit,
  fetch,
  makeWorld,
  type Permissions,
  read,
  type World,
  write,
} from './helpers/world.js';

/**
 * What decide() does to be cheap must not change what it decides: the sandbox profile left
 * out on request, the anchors resolved once per decision, the per-decision file-system view.
 */
let w: World;
let linkedWs: string;
let linkedHome: string;
beforeAll(() => {
  w = makeWorld('toolgate-lean-');
  w.file('src/a.ts');
  w.file('.env', 'A=1');
  w.file('.git/config');
  w.dir('build');
  w.link('src/link-to-env', '.env');
  w.link('hooks', '.git/hooks');
  w.file(path.join(w.home, '.ssh', 'id_rsa'), 'key');
  linkedWs = path.join(w.base, 'ws-link');
  fs.symlinkSync(w.ws, linkedWs);
  linkedHome = path.join(w.base, 'home-link');
  fs.symlinkSync(w.home, linkedHome);
});
afterAll(() => w.cleanup());

const RULES = [
  'Read(**/.env*)',
  'Read(.env)',
  'Read(./src/**)',
  'Read(/src/**)',
  'Read(~/.ssh/**)',
  'Read(*.pem)',
  'Edit(./src/**)',
  'Edit(src/**)',
  'Edit(/build/**)',
  'Edit(~/notes/**)',
  'Edit(//tmp/**)',
  'Bash(rm *)',
  'Bash(git *)',
  'WebFetch(domain:*.example.com)',
  'Read',
  'Edit',
];
type Kind = 'allow' | 'ask' | 'deny';
const perms: fc.Arbitrary<Permissions> = fc
  .uniqueArray(
    fc.record({ kind: fc.constantFrom<Kind>('allow', 'ask', 'deny'), text: fc.constantFrom(...RULES) }),
    { maxLength: 6, selector: (e) => `${e.kind}\0${e.text}` },
  )
  .map((list) => {
    const p: Required<Permissions> = { allow: [], ask: [], deny: [] };
    for (const e of list) p[e.kind].push(e.text);
    return p;
  });

const CALLS = (): Call[] => [
  read('.env'),
  read('src/a.ts'),
  read('src/link-to-env'),
  read('~/.ssh/id_rsa'),
  read(path.join(linkedWs, 'src/a.ts')),
  read('/etc/hosts'),
  edit('src/a.ts'),
  edit('hooks/pre-commit'),
  edit('.git/config'),
  edit('build/out.js'),
  write('src/new.ts'),
  write('/tmp/toolgate-lean.txt'),
  fetch('https://a.example.com/x'),
  bash('cat src/a.ts | wc -l'),
  bash('rm -rf build'),
  bash('echo x > src/out.ts'),
  { tool: 'TodoWrite', input: { todos: [] } },
];

function decideAt(
  policy: Parameters<typeof decide>[1],
  call: Call,
  cwd: string,
  view: FileSystemView,
  sandboxProfile?: boolean,
): Decision {
  return decide(
    {
      tool: call.tool,
      input: call.input,
      cwd,
      ...(call.mode === undefined ? {} : { mode: call.mode as Mode }),
    },
    policy,
    { fs: view, ...(sandboxProfile === undefined ? {} : { sandboxProfile }) },
  );
}

describe('decide(..., { sandboxProfile: false })', () => {
  it('decides exactly as without it, the sandbox profile aside (property)', async () => {
    const homes = (): FileSystemView[] => [w.fs, nodeFileSystem(linkedHome)];
    await fc.assert(
      fc.asyncProperty(
        perms,
        fc.constantFrom(...ALL_MODES),
        fc.boolean(),
        fc.nat(1),
        async (p, mode, linked, h) => {
          const policy = await compile(w, p);
          const view = homes()[h]!;
          for (const call of CALLS()) {
            const withMode = { ...call, mode };
            const cwd = linked ? linkedWs : w.ws;
            const full = decideAt(policy, withMode, cwd, view);
            const lean = decideAt(policy, withMode, cwd, view, false);
            const { sandbox, ...rest } = full;
            expect(lean, `${call.tool} ${JSON.stringify(call.input)} [${mode}]`).toEqual(rest);
            if (full.behavior !== 'deny') expect(sandbox).toBeDefined();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('AnchorSet', () => {
  it('gives the anchors as given, and resolved when any of them is a link', () => {
    const plain = new AnchorSet(w.fs, w.ws);
    expect(plain.variants(w.ws)).toEqual([{ cwd: w.ws, home: w.home, policyRoot: w.ws }]);
    const linked = new AnchorSet(nodeFileSystem(linkedHome), linkedWs);
    expect(linked.variants(w.base)).toEqual([
      { cwd: linkedWs, home: linkedHome, policyRoot: w.base },
      { cwd: w.ws, home: w.home, policyRoot: w.base },
    ]);
    expect(linked.variants(linkedWs)[1]).toEqual({ cwd: w.ws, home: w.home, policyRoot: w.ws });
  });

  it('resolves each anchor once, however many rules ask', () => {
    const asked: string[] = [];
    const view: FileSystemView = {
      ...w.fs,
      realpathAnchor: (p) => {
        asked.push(p);
        return realpathOfLongestPrefix(p);
      },
    };
    const set = new AnchorSet(view, linkedWs);
    for (let i = 0; i < 5; i++) set.variants(w.ws);
    expect(asked).toEqual([linkedWs, w.home, w.ws]);
  });
});

describe('DecisionFs', () => {
  const NAMES = ['ws', 'ws-link', 'home', 'src', 'a.ts', '.env', 'link-to-env', 'hooks', 'missing'];
  it('answers as the view it wraps, asking it once per path (property)', () => {
    const pathOf = fc
      .array(fc.constantFrom(...NAMES), { maxLength: 4 })
      .map((ns) => path.join(w.base, ...ns));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), pathOf), { minLength: 1, maxLength: 20 }), (asks) => {
        const counts = new Map<string, number>();
        const base: FileSystemView = {
          ...w.fs,
          realpath: (p) => {
            counts.set(p, (counts.get(p) ?? 0) + 1);
            return realpathOfLongestPrefix(p);
          },
        };
        const view = new DecisionFs(base);
        for (const [anchor, p] of asks) {
          const expected = anchor ? w.fs.realpathAnchor!(p) : realpathOfLongestPrefix(p);
          expect(anchor ? view.realpathAnchor(p) : view.realpath(p)).toBe(expected);
        }
        for (const n of counts.values()) expect(n).toBe(1);
      }),
      { numRuns: 200 },
    );
  });

  it('resolves as the view it wraps does, one lstat per path: links, dangling links, loops, a link to .., files on the way, missing paths (property)', () => {
    // src/a.ts/x has a file on the way; hooks and dangling lead nowhere; dir-link and ws-link to directories.
    w.link('dangling', 'no-such-target');
    w.link('dir-link', 'src');
    w.link('loop1', 'loop2');
    w.link('loop2', 'loop1');
    fs.symlinkSync('..', w.at('src/up'));
    const names = [...NAMES, 'dangling', 'dir-link', 'loop1', 'up', 'x', '..', '.', ''];
    const pathOf = fc
      .array(fc.constantFrom(...names), { maxLength: 5 })
      .map((ns) => `${w.base}/${ns.join('/')}`);
    fc.assert(
      fc.property(fc.array(pathOf, { minLength: 1, maxLength: 12 }), (paths) => {
        const lstats = new Map<string, number>();
        const base: FileSystemView = {
          ...w.fs,
          lstatKind: (p) => {
            lstats.set(p, (lstats.get(p) ?? 0) + 1);
            return w.fs.lstatKind!(p);
          },
        };
        const view = new DecisionFs(base);
        for (const p of paths) expect(view.realpath(p), p).toBe(realpathOfLongestPrefix(p));
        for (const n of lstats.values()) expect(n).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it('lists a tree once per decision, and has no walk when the view it wraps has none', () => {
    let walks = 0;
    const base: FileSystemView = {
      ...w.fs,
      walk: (root, how, limit) => {
        walks++;
        return w.fs.walk!(root, how, limit);
      },
    };
    const view = new DecisionFs(base);
    const how = { skipsHidden: false, followsLinks: false };
    const first = view.walk!(w.ws, how, 100);
    expect(view.walk!(w.ws, how, 100)).toBe(first);
    expect(first).toEqual(w.fs.walk!(w.ws, how, 100));
    expect(walks).toBe(1);
    const { walk: _, ...noWalk } = w.fs;
    expect(new DecisionFs(noWalk).walk).toBeUndefined();
  });
});
