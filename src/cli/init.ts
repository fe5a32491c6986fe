import fs from 'node:fs';
import path from 'node:path';
import { parseCliArgs } from './args.js';
import { ENFORCING_AGENTS, INIT_AGENTS, type InitAgent, lineDiff, planAgent } from './init-agents.js';
import { carriedRules } from './init-permissions.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate init [--dir D] [--agent NAME | --claude] [--enforce] [--dry-run] [--force]

Starts a project policy: writes .toolgate/policy.yaml, which builds on the embedded default
(extends: builtin:default) and carries commented examples and tests of its own.

  --dir D    the project directory (default: the current directory)
  --claude   also put "toolgate hook --warm" in the project's .claude/settings.json as PreToolUse
             and PermissionRequest hooks for every tool, with "onFailure": "block" (other
             settings are kept; an existing toolgate hook is left)
  --enforce  with --claude or --agent claude|gemini|codex|cursor: the hook runs with --enforce,
             so that allowed and asked shell calls run inside \`toolgate jail\` (read-only for a
             call predicted read-only); a toolgate hook already there gets --enforce too
  --agent NAME  the hook for one agent, in the file it reads, with its fail-closed setting where
             it has one (other settings kept; an existing toolgate hook is left):
               claude    .claude/settings.json (as --claude; onFailure: block)
               gemini    .gemini/settings.json BeforeTool
               codex     $CODEX_HOME/hooks.json (default ~/.codex) PreToolUse; Codex runs it once trusted
               cursor    .cursor/hooks.json beforeShellExecution, preToolUse and
                         beforeMCPExecution, failClosed: true
               copilot   .github/hooks/toolgate.json preToolUse
               opencode  .opencode/plugin/toolgate.js (the plugin; fails closed)
  --dry-run  print what would change, as a diff, and write nothing
  --force    replace an existing .toolgate/policy.yaml (and policy.local.yaml)

Permission rules already in .claude/settings.json are carried into the new policy.yaml, and
those in .claude/settings.local.json into .toolgate/policy.local.yaml, so that toolgate decides
as Claude Code did (deny and ask at once; allow once you trust the file: toolgate trust). The
decision log and policy.local.yaml are kept out of git by .toolgate/.gitignore.

Nothing is overwritten without --force, and a .claude/settings.json that is not valid JSON is
left alone (exit 2). Exit status: 0 done; 2 usage errors or a file that cannot be written.
`;

const POLICY_HEAD = `# toolgate policy for this project: \`toolgate test\` runs its tests, \`toolgate lint\` checks it.
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
`;

const POLICY_TESTS = `
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
  // an agent that cannot be made to run the jailed call would look enforced and run it unjailed
  if (values.enforce && !(ENFORCING_AGENTS as readonly (string | undefined)[]).includes(agent))
    throw new UsageError(
      `--enforce goes with --agent ${ENFORCING_AGENTS.join('|')}${agent === undefined ? '' : ` (${agent} is not known to run a rewritten call)`}`,
    );
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

  // Claude Code's own permission rules, shared and personal, go where toolgate reads them.
  const policyFile = path.join(dir, '.toolgate', 'policy.yaml');
  const shared = carried(io, dir, 'settings.json');
  writePolicy(io, policyFile, `${POLICY_HEAD}${shared ? `\n${shared}` : ''}${POLICY_TESTS}`, values.force);
  const personal = carried(io, dir, 'settings.local.json');
  if (personal !== undefined)
    writePolicy(
      io,
      path.join(dir, '.toolgate', 'policy.local.yaml'),
      `version: 1\n\n${personal}`,
      values.force,
    );
  keepOutOfGit(path.join(dir, '.toolgate', '.gitignore'), ['decisions.jsonl*', 'policy.local.yaml']);
  for (const p of planned) {
    if ('after' in p) {
      writeAtomically(p.file, p.after);
      io.stdout.write(`${rel(io, p.file)}: ${p.said ?? 'the toolgate hook added'}\n`);
    } else if ('unchanged' in p) io.stdout.write(`${rel(io, p.file)} ${p.unchanged}\n`);
  }
  io.stdout.write(
    `\nnext:\n  toolgate test ${rel(io, policyFile)}\n  toolgate lint ${rel(io, policyFile)}\n` +
      `  toolgate check --tool Bash --input '{"command":"rm -rf build"}' --explain\n`,
  );
  return 0;
}

function writePolicy(io: CliIO, file: string, text: string, force: boolean | undefined): void {
  const existed = fs.existsSync(file);
  if (existed && !force) io.stdout.write(`${rel(io, file)} exists; left as it is (--force replaces it)\n`);
  else {
    writeAtomically(file, text);
    io.stdout.write(`${existed ? 'replaced' : 'wrote'} ${rel(io, file)}\n`);
  }
}

/** The rules of `.claude/<name>` as policy YAML, said on stdout; undefined when there are none. */
function carried(io: CliIO, dir: string, name: string): string | undefined {
  const shown = `.claude/${name}`;
  const rules = carriedRules(path.join(dir, '.claude', name), shown);
  if (rules === undefined) return undefined;
  if ('problem' in rules) {
    io.stdout.write(`permission rules not carried over: ${rules.problem}\n`);
    return undefined;
  }
  const { deny, ask, allow } = rules.counts;
  const left = rules.refused.length > 0 ? `; ${rules.refused.length} left out (see the file)` : '';
  const trust = allow > 0 ? ' (the allow rules apply once you trust the file: toolgate trust)' : '';
  io.stdout.write(`carried over from ${shown}: ${deny} deny, ${ask} ask, ${allow} allow${trust}${left}\n`);
  return rules.yaml;
}

/** `.toolgate/.gitignore` with each of `lines`, whatever else it holds kept. */
function keepOutOfGit(file: string, lines: readonly string[]): void {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const have = new Set(text.split('\n'));
  const missing = lines.filter((l) => !have.has(l));
  if (missing.length === 0) return;
  const sep = text === '' || text.endsWith('\n') ? '' : '\n';
  writeAtomically(file, `${text}${sep}${missing.join('\n')}\n`);
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
