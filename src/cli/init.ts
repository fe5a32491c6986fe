import fs from 'node:fs';
import path from 'node:path';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate init [--dir D] [--claude [--enforce]] [--force]

Starts a project policy: writes .toolgate/policy.yaml, which builds on the embedded default
(extends: builtin:default) and carries commented examples and tests of its own.

  --dir D    the project directory (default: the current directory)
  --claude   also put "toolgate hook --warm" in the project's .claude/settings.json as PreToolUse
             and PermissionRequest hooks for every tool, with "onFailure": "block" (other
             settings are kept; an existing toolgate hook is left)
  --enforce  with --claude: the hook runs with --enforce, so that allowed and asked Bash calls
             run inside \`toolgate jail\` (read-only for a call predicted read-only)
The decision log (.toolgate/decisions.jsonl) is kept out of git by .toolgate/.gitignore.
  --force    replace an existing .toolgate/policy.yaml

Nothing is overwritten without --force, and a .claude/settings.json that is not valid JSON is
left alone (exit 2). Exit status: 0 done; 2 usage errors or a file that cannot be written.
`;

const POLICY = `# toolgate policy for this project: \`toolgate test\` runs its tests, \`toolgate lint\` checks it.
#
# Rules use Claude Code's permission syntax. A deny anywhere wins; then ask; then allow; what
# no rule decides falls to the embedded default below it: read-only work inside the project
# runs, secrets are denied, anything that writes, deletes or uses the network asks.
version: 1
extends: builtin:default

rules: []
# Examples (move them into the list above):
#   - id: project-scripts
#     allow: ["Bash(npm run test *)", "Bash(make check)"]
#     reason: The project's own checks
#   - id: no-prod
#     deny: ["Bash(terraform apply*)", "Bash(kubectl *--context=prod*)", "Bash(kubectl *--context prod*)"]
#     reason: Production changes go through the release pipeline
#   - ask: "Bash(git push *)"
#   - allow: ["Edit(./src/**)", "WebFetch(domain:*.github.com)", "mcp__github__get_*"]
#   - deny: "Read(./config/production.yml)"

tests:
  - { name: read-only work runs, tool: Bash, input: { command: "git status && ls -la" }, expect: allow }
  - { name: secrets stay secret, tool: Bash, input: { command: "cat .env | grep KEY" }, expect: deny }
  - { name: edits ask, tool: Edit, input: { file_path: src/index.ts, old_string: a, new_string: b }, expect: ask }
  - { name: force pushes never, tool: Bash, input: { command: "git push --force origin main" }, expect: deny }
`;

const HOOK_COMMAND = 'toolgate hook --warm --log .toolgate/decisions.jsonl';

export async function initCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    dir: { type: 'string' },
    claude: { type: 'boolean' },
    enforce: { type: 'boolean' },
    force: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.enforce && !values.claude) throw new UsageError('--enforce goes with --claude');
  const dir = path.resolve(io.cwd, values.dir ?? '.');
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return fail(io, `${dir} is not a directory`);

  // Settings first: if they cannot be merged, nothing at all is written.
  let settings: { file: string; text: string; added: boolean } | undefined;
  if (values.claude) {
    const planned = plannedSettings(
      path.join(dir, '.claude', 'settings.json'),
      values.enforce ? `${HOOK_COMMAND} --enforce` : HOOK_COMMAND,
    );
    if ('error' in planned) return fail(io, planned.error);
    settings = planned;
  }

  const policyFile = path.join(dir, '.toolgate', 'policy.yaml');
  const existed = fs.existsSync(policyFile);
  if (existed && !values.force)
    io.stdout.write(`${rel(io, policyFile)} exists; left as it is (--force replaces it)\n`);
  else {
    writeAtomically(policyFile, POLICY);
    io.stdout.write(`${existed ? 'replaced' : 'wrote'} ${rel(io, policyFile)}\n`);
  }
  const ignore = path.join(dir, '.toolgate', '.gitignore');
  if (!fs.existsSync(ignore)) writeAtomically(ignore, 'decisions.jsonl*\n');
  if (settings) {
    if (settings.added) {
      writeAtomically(settings.file, settings.text);
      io.stdout.write(`added the toolgate PreToolUse hook to ${rel(io, settings.file)}\n`);
    } else io.stdout.write(`${rel(io, settings.file)} already runs toolgate hook; left as it is\n`);
  }
  io.stdout.write(
    `\nnext:\n  toolgate test ${rel(io, policyFile)}\n  toolgate lint ${rel(io, policyFile)}\n` +
      `  toolgate check --tool Bash --input '{"command":"rm -rf build"}' --explain\n`,
  );
  return 0;
}

type PlannedSettings = { file: string; text: string; added: boolean } | { error: string };

/** Claude Code settings with toolgate's hook added, every other key kept as it was. */
function plannedSettings(file: string, command: string): PlannedSettings {
  let settings: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        return { error: `${file} does not hold a JSON object; left alone, nothing written` };
      settings = parsed as Record<string, unknown>;
    } catch (err) {
      return { error: `${file} is not valid JSON (${(err as Error).message}); left alone, nothing written` };
    }
  }
  const hooks = (settings.hooks ?? {}) as Record<string, unknown>;
  if (typeof hooks !== 'object' || Array.isArray(hooks))
    return { error: `${file}: "hooks" is not an object; left alone, nothing written` };
  const pre = hooks.PreToolUse ?? [];
  if (!Array.isArray(pre))
    return { error: `${file}: "hooks.PreToolUse" is not a list; left alone, nothing written` };
  const perm = hooks.PermissionRequest ?? [];
  if (!Array.isArray(perm))
    return { error: `${file}: "hooks.PermissionRequest" is not a list; left alone, nothing written` };
  const present = JSON.stringify(pre).includes('toolgate hook');
  if (present) return { file, text: '', added: false };
  // onFailure "block": Claude Code (2.1.295+) then blocks when the hook cannot start, exits
  // with another code or times out, which toolgate itself cannot close.
  const entry = { matcher: '*', hooks: [{ type: 'command', command, onFailure: 'block' }] };
  const next = {
    ...settings,
    hooks: {
      ...hooks,
      PreToolUse: [...pre, entry],
      PermissionRequest: JSON.stringify(perm).includes('toolgate hook') ? perm : [...perm, entry],
    },
  };
  return { file, text: `${JSON.stringify(next, null, 2)}\n`, added: true };
}

function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function rel(io: CliIO, file: string): string {
  const r = path.relative(io.cwd, file);
  return r === '' || r.startsWith('..') ? file : r;
}

function fail(io: CliIO, message: string): number {
  io.stderr.write(`toolgate init: ${message}\n`);
  return 2;
}
