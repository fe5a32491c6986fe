import fs from 'node:fs';
import path from 'node:path';
import { parseCliArgs } from './args.js';
import { INIT_AGENTS, type InitAgent, lineDiff, planAgent } from './init-agents.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate init [--dir D] [--agent NAME | --claude [--enforce]] [--dry-run] [--force]

Starts a project policy: writes .toolgate/policy.yaml, which builds on the embedded default
(extends: builtin:default) and carries commented examples and tests of its own.

  --dir D    the project directory (default: the current directory)
  --claude   also put "toolgate hook --warm" in the project's .claude/settings.json as PreToolUse
             and PermissionRequest hooks for every tool, with "onFailure": "block" (other
             settings are kept; an existing toolgate hook is left)
  --enforce  with --claude: the hook runs with --enforce, so that allowed and asked Bash calls
             run inside \`toolgate jail\` (read-only for a call predicted read-only)
  --agent NAME  the hook for one agent, in the file it reads, with its fail-closed setting where
             it has one (other settings kept; an existing toolgate hook is left):
               claude    .claude/settings.json (as --claude; onFailure: block)
               gemini    .gemini/settings.json BeforeTool
               codex     $CODEX_HOME/hooks.json (default ~/.codex) PreToolUse; Codex runs it once trusted
               cursor    .cursor/hooks.json beforeShellExecution, failClosed: true
               copilot   .github/hooks/toolgate.json preToolUse
               opencode  .opencode/plugin/toolgate.js (the plugin; fails closed)
  --dry-run  print what would change, as a diff, and write nothing
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

export async function initCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    dir: { type: 'string' },
    claude: { type: 'boolean' },
    agent: { type: 'string' },
    'dry-run': { type: 'boolean' },
    enforce: { type: 'boolean' },
    force: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const agent = values.claude ? 'claude' : values.agent;
  if (values.claude && values.agent !== undefined && values.agent !== 'claude')
    throw new UsageError('--claude and --agent name two agents; give one');
  if (agent !== undefined && !(INIT_AGENTS as readonly string[]).includes(agent))
    throw new UsageError(`--agent ${agent}: no such agent (known: ${INIT_AGENTS.join(', ')})`);
  if (values.enforce && agent !== 'claude') throw new UsageError('--enforce goes with --claude');
  const dir = path.resolve(io.cwd, values.dir ?? '.');
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return fail(io, `${dir} is not a directory`);

  // The agent's files first: if one cannot be merged, nothing at all is written.
  const planned =
    agent === undefined
      ? []
      : planAgent(agent as InitAgent, dir, {
          enforce: values.enforce === true,
          env: io.env,
          force: values.force === true,
        });
  for (const p of planned) if ('error' in p) return fail(io, p.error);

  if (values['dry-run']) {
    for (const p of planned) {
      if ('after' in p) io.stdout.write(lineDiff(rel(io, p.file), p.before, p.after));
      else if ('unchanged' in p) io.stdout.write(`${rel(io, p.file)}: ${p.unchanged}\n`);
    }
    io.stdout.write('(dry run: nothing written)\n');
    return 0;
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
  for (const p of planned) {
    if ('after' in p) {
      writeAtomically(p.file, p.after);
      io.stdout.write(`added the toolgate hook to ${rel(io, p.file)}\n`);
    } else if ('unchanged' in p) io.stdout.write(`${rel(io, p.file)} ${p.unchanged}\n`);
  }
  io.stdout.write(
    `\nnext:\n  toolgate test ${rel(io, policyFile)}\n  toolgate lint ${rel(io, policyFile)}\n` +
      `  toolgate check --tool Bash --input '{"command":"rm -rf build"}' --explain\n`,
  );
  return 0;
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
