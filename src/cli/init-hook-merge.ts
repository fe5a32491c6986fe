import fs from 'node:fs';

/**
 * Merging toolgate's hook into an agent's JSON hook file (`toolgate init --agent NAME`): what is
 * there is kept, a second run changes nothing, and a toolgate hook already there is brought up
 * to the agent's fail-closed setting and to --enforce rather than left looking right.
 */
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

/** Where the agents' hook entries hold their command (Copilot's is `bash`). */
const HOOK_COMMAND_KEYS = ['command', 'bash'] as const;

const runsToolgate = (command: unknown) => typeof command === 'string' && command.includes('toolgate hook');

export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Where a hook goes in an agent's JSON file: `settings[outer][event]`, a list, gets `entry`. */
export type HookAt = readonly [outer: string, event: string, entry: unknown];

interface Merge {
  /** Members the file gets when it lacks them (Cursor's and Copilot's `version`). */
  readonly defaults?: Record<string, unknown>;
  /** The agent's fail-closed setting, given to a toolgate hook already there that lacks it. */
  readonly failClosed?: Record<string, unknown>;
  /** `--enforce`: a toolgate hook already there must run with it too (see withEnforce). */
  readonly enforce?: boolean;
}

/**
 * A JSON file with each entry appended to its list, every other member kept. A list that
 * already mentions `toolgate hook` keeps its entry, except that a toolgate hook missing a
 * `failClosed` member gets it (an entry written before init wrote `onFailure: "block"` would
 * otherwise stay fail-open for good; one that sets it otherwise is the user's, kept and named)
 * and, under `--enforce`, one without `--enforce` gets it (else it would look enforced and not
 * be). A file that is not a JSON object, a member on the way that is not an object or a list,
 * or a toolgate hook that --enforce cannot be added to, is an error and nothing is written.
 */
export function jsonHook(file: string, where: readonly HookAt[], merge: Merge = {}): Planned {
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
  let next: Record<string, unknown> = { ...merge.defaults, ...settings };
  const added: string[] = [];
  const upgraded: string[] = [];
  const kept: string[] = [];
  for (const [outer, event, entry] of where) {
    const group = next[outer] ?? {};
    if (group === null || typeof group !== 'object' || Array.isArray(group))
      return { error: `${file}: "${outer}" is not an object; left alone, nothing written` };
    const list = (group as Record<string, unknown>)[event] ?? [];
    if (!Array.isArray(list))
      return { error: `${file}: "${outer}.${event}" is not a list; left alone, nothing written` };
    let nextList: unknown[];
    if (JSON.stringify(list).includes('toolgate hook')) {
      const at = `${outer}.${event}`;
      const refused: string[] = [];
      nextList = list.map((e) =>
        upgradeHooks(e, (hook) => {
          const closed = withFailClosed(hook, merge.failClosed ?? {}, at, upgraded, kept);
          return merge.enforce ? withEnforce(closed, at, upgraded, refused) : closed;
        }),
      );
      if (refused.length > 0)
        return {
          error: `${file}: ${refused.join('; ')}: --enforce cannot be added to it; add it by hand, nothing written`,
        };
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

/** `value` with `change` applied to every toolgate hook in it (an object whose command runs `toolgate hook`). */
function upgradeHooks(
  value: unknown,
  change: (hook: Record<string, unknown>) => Record<string, unknown>,
): unknown {
  if (Array.isArray(value)) return value.map((v) => upgradeHooks(v, change));
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (HOOK_COMMAND_KEYS.some((k) => runsToolgate(o[k]))) return change(o);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = upgradeHooks(v, change);
  return out;
}

/**
 * `hook` given the members of `failClosed` it lacks; `upgraded` and `kept` say what was added
 * and what the user had set otherwise.
 */
function withFailClosed(
  hook: Record<string, unknown>,
  failClosed: Record<string, unknown>,
  where: string,
  upgraded: string[],
  kept: string[],
): Record<string, unknown> {
  const out = { ...hook };
  for (const [k, v] of Object.entries(failClosed)) {
    if (!(k in hook)) {
      out[k] = v;
      upgraded.push(`${where}: ${k}: ${JSON.stringify(v)}`);
    } else if (JSON.stringify(hook[k]) !== JSON.stringify(v))
      kept.push(`${where}: ${k}: ${JSON.stringify(hook[k])}`);
  }
  return out;
}

/**
 * `hook` running with `--enforce`. Appended only to a command of plain words (no quoting,
 * redirection, pipe or list), where the end of the command is the end of toolgate's
 * arguments; any other command is named in `refused`.
 */
function withEnforce(
  hook: Record<string, unknown>,
  where: string,
  upgraded: string[],
  refused: string[],
): Record<string, unknown> {
  const key = HOOK_COMMAND_KEYS.find((k) => runsToolgate(hook[k])) ?? 'command';
  const command = String(hook[key]);
  if (/(^|\s)--enforce(\s|$)/.test(command)) return hook;
  if (!/^[\w./:=@+-]+( [\w./:=@+-]+)*$/.test(command)) {
    refused.push(`${where} runs ${JSON.stringify(command)}`);
    return hook;
  }
  upgraded.push(`${where}: --enforce`);
  return { ...hook, [key]: `${command} --enforce` };
}
