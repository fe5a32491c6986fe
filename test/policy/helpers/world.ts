import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CompiledPolicy } from '../../../src/policy/compile.js';
import { decide } from '../../../src/policy/decide.js';
import type { Decision } from '../../../src/policy/decision.js';
import { type FileSystemView, nodeFileSystem } from '../../../src/policy/fs-view.js';
import type { Layer } from '../../../src/policy/load.js';
import type { Mode } from '../../../src/policy/mode.js';
import { policyFromText } from '../../../src/policy/policy.js';

/**
 * A real world on disk for spec tests: a temp directory holding a workspace (`ws`) and a home
 * (`home`), both real (symlink-free) absolute paths, and the file-system view decide() uses,
 * with `home` as the user's home. Everything is removed by `cleanup()`.
 */
export interface World {
  readonly base: string;
  readonly ws: string;
  readonly home: string;
  readonly fs: FileSystemView;
  /** An absolute path: `rel` inside the workspace, or `rel` itself when absolute. */
  at(rel: string): string;
  /** Writes a file (parents created); returns its absolute path. */
  file(rel: string, text?: string): string;
  /** Creates a directory (parents created); returns its absolute path. */
  dir(rel: string): string;
  /** Creates a symlink at `rel` pointing to `target` (both workspace-relative or absolute). */
  link(rel: string, target: string): string;
  cleanup(): void;
}

export function makeWorld(prefix = 'toolgate-spec-'): World {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const ws = path.join(base, 'ws');
  const home = path.join(base, 'home');
  fs.mkdirSync(ws);
  fs.mkdirSync(home);
  const at = (rel: string) => (path.isAbsolute(rel) ? rel : path.join(ws, rel));
  return {
    base,
    ws,
    home,
    fs: nodeFileSystem(home),
    at,
    file(rel, text = 'x\n') {
      const p = at(rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
      return p;
    },
    dir(rel) {
      const p = at(rel);
      fs.mkdirSync(p, { recursive: true });
      return p;
    },
    link(rel, target) {
      const p = at(rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.symlinkSync(at(target), p);
      return p;
    },
    cleanup() {
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

export interface Permissions {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** The text of a toolgate policy file holding these rules (JSON, which is also YAML). */
export function policyText(perms: Permissions, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 1, ...extra, permissions: perms }, null, 2);
}

/** Compiles rules as an inline policy whose `/x` anchors are relative to the workspace. */
export function compile(
  world: World,
  perms: Permissions,
  extra: Record<string, unknown> = {},
  options: { source?: string; layer?: Layer; root?: string } = {},
): Promise<CompiledPolicy> {
  return policyFromText(policyText(perms, extra), {
    source: options.source ?? 'spec-policy.json',
    layer: options.layer ?? 'cli',
    root: options.root ?? world.ws,
  });
}

export interface Call {
  tool: string;
  input: unknown;
  mode?: Mode | string;
  cwd?: string;
}

export function decideIn(world: World, policy: CompiledPolicy, call: Call): Decision {
  return decide(
    {
      tool: call.tool,
      input: call.input,
      cwd: call.cwd ?? world.ws,
      ...(call.mode === undefined ? {} : { mode: call.mode as Mode }),
    },
    policy,
    { fs: world.fs },
  );
}

/** Shorthands for the calls tests make most. */
export const bash = (command: string, mode?: Mode | string, cwd?: string): Call => ({
  tool: 'Bash',
  input: { command },
  ...(mode === undefined ? {} : { mode }),
  ...(cwd === undefined ? {} : { cwd }),
});
export const read = (file_path: string, mode?: Mode | string, cwd?: string): Call => ({
  tool: 'Read',
  input: { file_path },
  ...(mode === undefined ? {} : { mode }),
  ...(cwd === undefined ? {} : { cwd }),
});
export const edit = (file_path: string, mode?: Mode | string, cwd?: string): Call => ({
  tool: 'Edit',
  input: { file_path, old_string: 'a', new_string: 'b' },
  ...(mode === undefined ? {} : { mode }),
  ...(cwd === undefined ? {} : { cwd }),
});
export const write = (file_path: string, mode?: Mode | string, cwd?: string): Call => ({
  tool: 'Write',
  input: { file_path, content: 'x' },
  ...(mode === undefined ? {} : { mode }),
  ...(cwd === undefined ? {} : { cwd }),
});
export const fetch = (url: string, mode?: Mode | string): Call => ({
  tool: 'WebFetch',
  input: { url, prompt: 'summarize' },
  ...(mode === undefined ? {} : { mode }),
});

/** Every mode, each spelling of bypass included. */
export const ALL_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
  'bypass',
] as const;

/** One compiled policy per rule set, then a decision per call: for table-driven tests. */
export async function decideWith(world: World, perms: Permissions, call: Call): Promise<Decision> {
  return decideIn(world, await compile(world, perms), call);
}

/**
 * A managed root of the test's own (the library API's seam; the real one is /etc/toolgate):
 * `files` maps names under it (`policy.yaml`, `managed.d/x.yaml`) to text. Directories 0755 and
 * files 0644, owned by whoever runs the test, which `managedOwner` names.
 */
export function managedRoot(
  dir: string,
  files: Record<string, string>,
): { managedRoot: string; managedOwner: number } {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    fs.writeFileSync(file, text, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
  }
  fs.chmodSync(dir, 0o755);
  if (fs.existsSync(path.join(dir, 'managed.d'))) fs.chmodSync(path.join(dir, 'managed.d'), 0o755);
  return { managedRoot: dir, managedOwner: process.getuid?.() ?? 0 };
}
