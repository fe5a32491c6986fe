import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { cwdOf, modeOf, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';

const HELP = `usage: toolgate jail [--cwd D] [--policy F]... [--mode M] [--log FILE [--log-key KEY]] -- COMMAND

Decides COMMAND as a Bash call against the policy and directory (as \`toolgate check\` would),
then runs it with bash inside the jail that decision names:
  allow  the decision's profile (a call predicted read-only: nothing writable, no network)
  ask    the profile an approved call runs under: the agent runs it only after a person said yes
  deny   nothing runs; the reason goes to stderr and the exit status is 126
The command's output, exit status and environment (minus what the profile withholds) pass
through as bash would give them. Nothing in COMMAND chooses its own jail: it is decided again
here. toolgate's own files (the policy files, the --log and --log-key the hook writes with,
the trust store, its cache and program) stay read-only inside the jail; the jail does not
write to the log. Exit status 126 also when the jail cannot be built (no working bubblewrap
where the policy requires it, a planted link, a tree too large to check, an own file it
cannot hold).
`;

/** Exit status of a command that was found but could not be run, as bash uses it. */
export const REFUSED = 126;

export async function jailCommand(argv: string[], io: CliIO): Promise<number> {
  const dash = argv.indexOf('--');
  const { values, positionals } = parseCliArgs(dash < 0 ? argv : argv.slice(0, dash), {
    ...POLICY_OPTIONS,
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const words = dash < 0 ? positionals : [...positionals, ...argv.slice(dash + 1)];
  if (words.length === 0) throw new UsageError('give the command after --');
  // One word is the command line itself (the hook's rewrite quotes it whole); several are
  // joined with spaces, as `bash -c "$*"` would see them.
  const command = words.join(' ');
  const mode = modeOf(values.mode);
  const cwd = cwdOf(values, io);

  let policy: Awaited<ReturnType<typeof policyFor>>;
  try {
    policy = await policyFor(values, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate jail: ${err.message}\n`);
      return REFUSED;
    }
    throw err;
  }
  const { decide } = await import('../policy/decide.js');
  const request: ToolRequest = { tool: 'Bash', input: { command }, cwd, ...(mode ? { mode } : {}) };
  const decision: Decision = decide(request, policy);
  if (decision.behavior === 'deny' || decision.sandbox === undefined) {
    io.stderr.write(`toolgate jail: denied: ${decision.reason}\n`);
    return REFUSED;
  }

  const { runSandboxed } = await import('../sandbox/run.js');
  const { removeSpill } = await import('../sandbox/output.js');
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, onSignal);
  try {
    const result = await runSandboxed({
      script: command,
      cwd,
      profile: decision.sandbox,
      env: io.env,
      signal: abort.signal,
      onOutput: (chunk, stream) => (stream === 'stdout' ? io.stdout : io.stderr).write(chunk),
    });
    if (!result.ok) {
      io.stderr.write(`toolgate jail: ${result.message}\n`);
      return REFUSED;
    }
    if (result.output.spillPath) await removeSpill(result.output.spillPath);
    for (const note of result.notes) io.stderr.write(`toolgate jail: ${note}\n`);
    if (result.exitCode !== null) return result.exitCode;
    // Killed by a signal: bash reports 128 + its number.
    const { constants } = await import('node:os');
    return 128 + (result.signal ? (constants.signals[result.signal] ?? 9) : 9);
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, onSignal);
  }
}
