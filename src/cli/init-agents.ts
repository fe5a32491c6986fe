import os from 'node:os';
import path from 'node:path';
import { opencodePlugin } from '../adapters/opencode-plugin.js';
import { jsonHook, type Planned, readText } from './init-hook-merge.js';

/**
 * `toolgate init --agent NAME`: where each agent reads its hook configuration, and the entry
 * that puts toolgate in front of it with the agent's fail-closed setting where it has one
 * (Claude Code `onFailure: "block"`, Cursor `failClosed: true`; Gemini CLI, Codex and Copilot
 * have none: toolgate exits 2 on its own failures, which each of them reads as a block). Every
 * other setting in the file is kept; a file that already runs `toolgate hook` is left as it is
 * (but for the fail-closed setting and --enforce), so running init twice changes nothing.
 */
export const INIT_AGENTS = ['claude', 'gemini', 'codex', 'cursor', 'copilot', 'opencode'] as const;
export type InitAgent = (typeof INIT_AGENTS)[number];

const LOG = '--log .toolgate/decisions.jsonl';

/**
 * The agents whose hook can make the agent run a changed call, so that `--enforce` jails it, and
 * how: Claude Code `updatedInput`, Gemini CLI `hookSpecificOutput.tool_input` and Codex allow +
 * `updatedInput` (each seen running the jailed command with the real binary), Cursor
 * `updated_input` on preToolUse (documented, not tried with a real binary). Copilot CLI's
 * `modifiedArgs` and OpenCode's plugin are not here: not seen honoured by their binaries, and an
 * enforce the agent ignores would look enforced and run the call unjailed.
 */
export const ENFORCING_AGENTS: readonly InitAgent[] = ['claude', 'gemini', 'codex', 'cursor'];

export function planAgent(
  agent: InitAgent,
  dir: string,
  options: { enforce?: boolean; env?: NodeJS.ProcessEnv; force?: boolean } = {},
): Planned[] {
  const env = options.env ?? process.env;
  const enforce = options.enforce === true;
  const flag = enforce ? ' --enforce' : '';
  switch (agent) {
    case 'claude': {
      const command = `toolgate hook --warm ${LOG}${flag}`;
      // onFailure "block": Claude Code (2.1.295+) then blocks when the hook cannot start, exits
      // with another code or times out, which toolgate itself cannot close.
      const entry = { matcher: '*', hooks: [{ type: 'command', command, onFailure: 'block' }] };
      const file = path.join(dir, '.claude', 'settings.json');
      return [
        jsonHook(
          file,
          [
            ['hooks', 'PreToolUse', entry],
            ['hooks', 'PermissionRequest', entry],
          ],
          { failClosed: { onFailure: 'block' }, enforce },
        ),
      ];
    }
    case 'gemini': {
      const command = `toolgate hook --agent gemini-cli ${LOG}${flag}`;
      const entry = { matcher: '.*', hooks: [{ type: 'command', command, timeout: 30000 }] };
      return [
        jsonHook(path.join(dir, '.gemini', 'settings.json'), [['hooks', 'BeforeTool', entry]], { enforce }),
      ];
    }
    case 'codex': {
      // Codex reads hooks from $CODEX_HOME (not the project); it skips a hook until trusted by hash.
      const home = env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex');
      const log = path.join(dir, '.toolgate', 'decisions.jsonl');
      const command = `toolgate hook --agent codex --log ${log}${flag}`;
      const entry = { matcher: '.*', hooks: [{ type: 'command', command, timeout: 30 }] };
      // PermissionRequest too: toolgate's deny must also stop an approval Codex is about to ask
      // for (it cannot rewrite a call, so --enforce changes nothing there)
      return [
        jsonHook(
          path.join(home, 'hooks.json'),
          [
            ['hooks', 'PreToolUse', entry],
            ['hooks', 'PermissionRequest', entry],
          ],
          { enforce },
        ),
      ];
    }
    case 'cursor': {
      // Every event that can stop a call: beforeShellExecution (older Cursor has only it and
      // beforeReadFile), preToolUse (every tool, and the one event that can rewrite: enforced
      // mode), beforeMCPExecution (names the MCP server, which preToolUse does not)
      const entry = { command: `toolgate hook --agent cursor ${LOG}${flag}`, failClosed: true };
      return [
        jsonHook(
          path.join(dir, '.cursor', 'hooks.json'),
          [
            ['hooks', 'beforeShellExecution', entry],
            ['hooks', 'preToolUse', entry],
            ['hooks', 'beforeMCPExecution', entry],
          ],
          { defaults: { version: 1 }, failClosed: { failClosed: true }, enforce },
        ),
      ];
    }
    case 'copilot':
      // camelCase preToolUse: the PascalCase event sends another, Claude-like payload.
      return [
        jsonHook(
          path.join(dir, '.github', 'hooks', 'toolgate.json'),
          [
            [
              'hooks',
              'preToolUse',
              { type: 'command', bash: `toolgate hook --agent copilot ${LOG}`, timeoutSec: 30 },
            ],
          ],
          { defaults: { version: 1 } },
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
