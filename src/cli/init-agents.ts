import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { opencodePlugin } from '../adapters/opencode-plugin.js';

/**
 * `toolgate init --agent NAME`: where each agent reads its hook configuration, and the entry
 * that puts toolgate in front of it with the agent's fail-closed setting where it has one
 * (Claude Code `onFailure: "block"`, Cursor `failClosed: true`; Gemini CLI, Codex and Copilot
 * have none: toolgate exits 2 on its own failures, which each of them reads as a block). Every
 * other setting in the file is kept; a file that already runs `toolgate hook` is left as it is,
 * so running init twice changes nothing.
 */
export const INIT_AGENTS = ['claude', 'gemini', 'codex', 'cursor', 'copilot', 'opencode'] as const;
export type InitAgent = (typeof INIT_AGENTS)[number];

export type Planned =
  | {
      readonly file: string;
      readonly before: string | undefined;
      readonly after: string;
      /** What changed, for the person running init (default: the hook was added). */
      readonly said?: string;
    }
  | { readonly file: string; readonly unchanged: string }
  | { readonly error: string };

const LOG = '--log .toolgate/decisions.jsonl';

export function planAgent(
  agent: InitAgent,
  dir: string,
  options: { enforce?: boolean; env?: NodeJS.ProcessEnv; force?: boolean } = {},
): Planned[] {
  const env = options.env ?? process.env;
  switch (agent) {
    case 'claude': {
      const command = `toolgate hook --warm ${LOG}${options.enforce ? ' --enforce' : ''}`;
      // onFailure "block": Claude Code (2.1.295+) then blocks when the hook cannot start, exits
      // with another code or times out, which toolgate itself cannot close.
      const entry = { matcher: '*', hooks: [{ type: 'command', command, onFailure: 'block' }] };
      const file = path.join(dir, '.claude', 'settings.json');
      return [
        jsonHook(
          file,
          ['hooks', 'PreToolUse'],
          entry,
          ['hooks', 'PermissionRequest'],
          {},
          { onFailure: 'block' },
        ),
      ];
    }
    case 'gemini':
      return [
        jsonHook(path.join(dir, '.gemini', 'settings.json'), ['hooks', 'BeforeTool'], {
          matcher: '.*',
          hooks: [{ type: 'command', command: `toolgate hook --agent gemini-cli ${LOG}`, timeout: 30000 }],
        }),
      ];
    case 'codex': {
      // Codex reads hooks from $CODEX_HOME (not the project); it skips a hook until trusted by hash.
      const home = env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex');
      const entry = {
        matcher: '.*',
        hooks: [
          {
            type: 'command',
            command: `toolgate hook --agent codex --log ${path.join(dir, '.toolgate', 'decisions.jsonl')}`,
            timeout: 30,
          },
        ],
      };
      // PermissionRequest too: toolgate's deny must also stop an approval Codex is about to ask for
      return [
        jsonHook(path.join(home, 'hooks.json'), ['hooks', 'PreToolUse'], entry, [
          'hooks',
          'PermissionRequest',
        ]),
      ];
    }
    case 'cursor':
      return [
        jsonHook(
          path.join(dir, '.cursor', 'hooks.json'),
          ['hooks', 'beforeShellExecution'],
          { command: `toolgate hook --agent cursor ${LOG}`, failClosed: true },
          undefined,
          { version: 1 },
          { failClosed: true },
        ),
      ];
    case 'copilot':
      // camelCase preToolUse: the PascalCase event sends another, Claude-like payload.
      return [
        jsonHook(
          path.join(dir, '.github', 'hooks', 'toolgate.json'),
          ['hooks', 'preToolUse'],
          { type: 'command', bash: `toolgate hook --agent copilot ${LOG}`, timeoutSec: 30 },
          undefined,
          { version: 1 },
        ),
      ];
    case 'opencode': {
      const file = path.join(dir, '.opencode', 'plugin', 'toolgate.js');
      const text = opencodePlugin({ hookArgs: ['--log', path.join(dir, '.toolgate', 'decisions.jsonl')] });
      const before = readText(file);
      if (before === text) return [{ file, unchanged: 'already holds this plugin' }];
      if (before !== undefined && !options.force)
        return [{ file, unchanged: 'exists and differs; left as it is (--force replaces it)' }];
      return [{ file, before, after: text }];
    }
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * A JSON file with `entry` appended to the list at `at` (and at `alsoAt`), every other member
 * kept; `defaults` fills members the file lacks (Cursor's and Copilot's `version`). A list that
 * already mentions `toolgate hook` keeps its entry, except that a toolgate hook missing a
 * `failClosed` member gets it (an entry written before init wrote `onFailure: "block"` would
 * otherwise stay fail-open for good); one that sets it otherwise is the user's, kept and named.
 * A file that is not a JSON object, or a member on the way that is not an object or a list, is
 * an error and nothing is written.
 */
function jsonHook(
  file: string,
  at: readonly [string, string],
  entry: unknown,
  alsoAt?: readonly [string, string],
  defaults: Record<string, unknown> = {},
  failClosed: Record<string, unknown> = {},
): Planned {
  let before: string | undefined;
  let settings: Record<string, unknown> = {};
  try {
    before = readText(file);
  } catch (err) {
    return { error: `${file} cannot be read (${(err as Error).message}); nothing written` };
  }
  if (before !== undefined) {
    try {
      const parsed: unknown = JSON.parse(before);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        return { error: `${file} does not hold a JSON object; left alone, nothing written` };
      settings = parsed as Record<string, unknown>;
    } catch (err) {
      return { error: `${file} is not valid JSON (${(err as Error).message}); left alone, nothing written` };
    }
  }
  let next: Record<string, unknown> = { ...defaults, ...settings };
  const added: string[] = [];
  const upgraded: string[] = [];
  const kept: string[] = [];
  for (const where of alsoAt ? [at, alsoAt] : [at]) {
    const [outer, event] = where;
    const group = next[outer] ?? {};
    if (group === null || typeof group !== 'object' || Array.isArray(group))
      return { error: `${file}: "${outer}" is not an object; left alone, nothing written` };
    const list = (group as Record<string, unknown>)[event] ?? [];
    if (!Array.isArray(list))
      return { error: `${file}: "${outer}.${event}" is not a list; left alone, nothing written` };
    let nextList: unknown[];
    if (JSON.stringify(list).includes('toolgate hook')) {
      nextList = list.map((e) => withFailClosed(e, failClosed, `${outer}.${event}`, upgraded, kept));
      if (JSON.stringify(nextList) === JSON.stringify(list)) continue;
    } else {
      nextList = [...list, entry];
      added.push(`${outer}.${event}`);
    }
    next = { ...next, [outer]: { ...(group as Record<string, unknown>), [event]: nextList } };
  }
  const said = [
    ...(added.length > 0 ? [`the toolgate hook added (${added.join(', ')})`] : []),
    ...upgraded.map((u) => `${u} added to the toolgate hook already there`),
    ...kept.map((k) => `${k} kept as you set it, though it does not fail closed`),
  ].join('; ');
  if (added.length === 0 && upgraded.length === 0)
    return {
      file,
      unchanged: `already runs toolgate hook; left as it is${kept.length > 0 ? ` (${said})` : ''}`,
    };
  return { file, before, after: `${JSON.stringify(next, null, 2)}\n`, said };
}

/**
 * `value` with every toolgate hook in it (an object whose command runs `toolgate hook`) given
 * the members of `failClosed` it lacks; `upgraded` and `kept` say what was added and what the
 * user had set otherwise.
 */
function withFailClosed(
  value: unknown,
  failClosed: Record<string, unknown>,
  where: string,
  upgraded: string[],
  kept: string[],
): unknown {
  if (Array.isArray(value)) return value.map((v) => withFailClosed(v, failClosed, where, upgraded, kept));
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const runs = [o.command, o.bash].some((c) => typeof c === 'string' && c.includes('toolgate hook'));
  if (!runs) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = withFailClosed(v, failClosed, where, upgraded, kept);
    return out;
  }
  const out = { ...o };
  for (const [k, v] of Object.entries(failClosed)) {
    if (!(k in o)) {
      out[k] = v;
      upgraded.push(`${where}: ${k}: ${JSON.stringify(v)}`);
    } else if (JSON.stringify(o[k]) !== JSON.stringify(v))
      kept.push(`${where}: ${k}: ${JSON.stringify(o[k])}`);
  }
  return out;
}

/** The lines that differ, `-` before and `+` after, between the common head and tail. */
export function lineDiff(file: string, before: string | undefined, after: string): string {
  const a = before === undefined ? [] : before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const out = [`--- ${before === undefined ? '/dev/null' : file}`, `+++ ${file}`, `@@ line ${head + 1} @@`];
  for (const l of a.slice(head, a.length - tail)) out.push(`-${l}`);
  for (const l of b.slice(head, b.length - tail)) out.push(`+${l}`);
  return `${out.join('\n')}\n`;
}
