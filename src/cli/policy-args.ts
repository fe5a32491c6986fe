import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AutoClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { projectRoot } from '../policy/discovery.js';
import { type Mode, parseMode } from '../policy/mode.js';
import type { PolicyCache } from '../policy/parse-cache.js';
import { formatProblem, type Layer, PolicyError } from '../policy/policy-file.js';
import type { CliIO } from './io.js';
import { errnoCode, UsageError } from './io.js';
import { needsReexec, reexecWithIsolates } from './reexec.js';

/** The options every deciding subcommand shares: --policy (repeatable), --mode, --cwd, --log. */
export const POLICY_OPTIONS = {
  policy: { type: 'string', multiple: true },
  mode: { type: 'string' },
  cwd: { type: 'string' },
  log: { type: 'string' },
  'log-key': { type: 'string' },
  'log-verbatim': { type: 'boolean' },
  otlp: { type: 'string' },
} as const;

export class PolicyLoadFailed extends Error {
  override name = 'PolicyLoadFailed';
}

/**
 * Loads the policy for a subcommand; a broken policy becomes one clear message per problem.
 * With a cache (the hook's), parsed files come from it and the parser loads only on a miss.
 */
export async function policyFor(
  values: LogValues & { policy?: string[] | undefined; cwd?: string | undefined },
  io: CliIO,
  consumedStdin?: string,
  cache?: PolicyCache,
): Promise<CompiledPolicy> {
  const { discoverPolicyFiles } = await import('../policy/layer-files.js');
  const trustModule = await import('../policy/trust.js');
  try {
    const entries = discoverPolicyFiles({
      // the agent's directory: the project root is found from it (discovery.ts)
      files: (values.policy ?? []).map((f) => policyPath(f, io.cwd)),
      cwd: cwdOf(values, io),
      env: io.env,
    });
    const trust = trustFor(entries, io, trustModule);
    const bundles = await bundleSourceFor(entries, io);
    const read = { trust, ...(bundles !== undefined && { bundle: bundles.reader }) };
    const load = async () =>
      cache
        ? (await import('../policy/parse-cache.js')).loadPolicyFilesCached(entries, cache, read)
        : (await import('../policy/layers.js')).loadPolicyFiles(entries, read);
    const policy = bundles === undefined ? await load() : await bundles.load(load);
    const { ownFilesOf } = await import('./own-files.js');
    const logs = logPathsOf(values, io, cwdOf(values, io));
    policy.ownFiles = ownFilesOf({
      ...logs,
      policyFiles: entries.map((e) => e.file),
      env: io.env,
      program: process.argv[1],
    });
    // Said on every call, not only in the Decision: whoever runs the agent sees it too.
    for (const note of policy.notes) io.stderr.write(`toolgate: ${note}\n`);
    if (policy.hasConditions) {
      // Conditions run in isolated-vm, which needs node restarted with --no-node-snapshot.
      if (needsReexec(true, io)) await reexecWithIsolates(io, consumedStdin);
      const { prepareConditions } = await import('../policy/conditions.js');
      policy.conditions = await prepareConditions(policy);
    }
    return policy;
  } catch (err) {
    if (err instanceof PolicyError) {
      throw new PolicyLoadFailed(
        `the policy was refused, nothing is allowed:\n${err.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
      );
    }
    throw err;
  }
}

/**
 * Only a managed file may name a policy bundle (src/bundle): without one, nothing of it loads.
 * Its notes (a failed pull, the last known good in use) are said on stderr, as policy notes are.
 */
async function bundleSourceFor(entries: readonly { layer: string }[], io: CliIO) {
  if (!entries.some((e) => e.layer === 'managed')) return undefined;
  const [{ BundleSource, loadWithBundles }, { bundleStateDir }] = await Promise.all([
    import('../bundle/source.js'),
    import('../bundle/pull.js'),
  ]);
  const source = new BundleSource({ dir: bundleStateDir(io.env, os.homedir()) });
  return {
    reader: source.reader,
    load: async (load: () => Promise<CompiledPolicy>): Promise<CompiledPolicy> => {
      try {
        const policy = await loadWithBundles(source, load);
        if (source.used.length > 0) policy.bundles = [...source.used];
        return policy;
      } finally {
        for (const note of source.notes) io.stderr.write(`toolgate: ${note}\n`);
      }
    },
  };
}

/**
 * The user's trust store (trust.ts), read only when a workspace file is among the layers; one
 * that cannot be read trusts nothing, and says so.
 */
function trustFor(
  entries: readonly { layer: string }[],
  io: CliIO,
  trust: typeof import('../policy/trust.js'),
): import('../policy/trust.js').TrustCheck | undefined {
  if (!entries.some((e) => trust.needsTrust(e.layer as Layer))) return undefined;
  const { store, problem } = trust.readTrustStore(trust.trustStorePath(io.env, os.homedir()));
  if (problem !== undefined)
    io.stderr.write(`toolgate: the trust store is not used, nothing is trusted: ${problem}\n`);
  return trust.trustCheckOf(store);
}

/** A policy file named on the command line, relative to the command's directory (io.cwd). */
export function policyPath(file: string, cwd: string): string {
  return file.startsWith('builtin:') ? file : path.resolve(cwd, file);
}

/**
 * auto mode's classifier as the policy's `auto:` block configures it: undefined means the
 * offline one. The Anthropic-backed one takes its endpoint from the policy, else from
 * ANTHROPIC_BASE_URL, as the SDK does; its key from ANTHROPIC_API_KEY.
 */
export async function classifierFor(policy: CompiledPolicy, io: CliIO): Promise<AutoClassifier | undefined> {
  if (policy.auto.classifier !== 'anthropic') return undefined;
  const { anthropicClassifier } = await import('../policy/auto.js');
  const { classifier: _kind, ...auto } = policy.auto;
  const baseURL = auto.baseURL ?? io.env.ANTHROPIC_BASE_URL;
  // From io.env, not left to the SDK's process.env: a warm hook process answers for callers
  // whose environment is not its own.
  const apiKey = io.env.ANTHROPIC_API_KEY;
  return anthropicClassifier({ ...auto, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) });
}

export function cwdOf(values: { cwd?: string | undefined }, io: CliIO): string {
  return path.resolve(io.cwd, values.cwd ?? '.');
}

export function modeOf(text: string | undefined): Mode | undefined {
  if (text === undefined) return undefined;
  const mode = parseMode(text);
  if (mode === undefined) {
    throw new UsageError(
      `unknown mode "${text}" (default, acceptEdits, plan, auto, dontAsk, bypassPermissions or bypass)`,
    );
  }
  return mode;
}

/**
 * The decision log from --log or $TOOLGATE_LOG, opened once per process. A relative path is
 * the project's (projectRoot from `cwd`, the agent's directory; else the command's): the hook
 * is started in whatever directory the agent has moved to. A missing directory is made,
 * private to the user: a log that cannot be opened would otherwise block every call.
 * Its checkpoint is kept beside it (LOG.checkpoint, rewritten after every batch), signed with
 * the Ed25519 key from --log-key or $TOOLGATE_LOG_KEY (relative like the log) when one is
 * named. A key that is named but cannot be read is an error: the log would otherwise go
 * unsigned without anyone noticing. Secrets (tokens, keys, Authorization headers, URL
 * passwords) are redacted unless --log-verbatim: a log is read by more people than the agent's
 * environment, and is easily committed; each record lists what was redacted, never the value.
 * With --otlp URL or $TOOLGATE_OTLP_ENDPOINT its records and checkpoints are also exported
 * to that OTLP/HTTP collector (src/export), after they are in the file.
 */
export async function logFor(values: LogValues, io: CliIO, cwd?: string) {
  const { log: resolved, logKey } = logPathsOf(values, io, cwd ?? io.cwd);
  if (resolved === undefined) {
    // The records exported are the log's (seq, hash, prev): there is nothing to export without one.
    if (values.otlp !== undefined)
      throw new UsageError('--otlp exports the decision log', 'give --log FILE (or TOOLGATE_LOG) too');
    return undefined;
  }
  const [{ DecisionLog }, { checkpointPathOf }] = await Promise.all([
    import('../audit/log.js'),
    import('../audit/checkpoint.js'),
  ]);
  let signingKey: import('node:crypto').KeyObject | undefined;
  if (logKey !== undefined) {
    const { readPrivateKeyFile } = await import('../audit/key-file.js');
    signingKey = await readPrivateKeyFile(logKey);
  }
  const otlp = values.otlp ?? io.env.TOOLGATE_OTLP_ENDPOINT;
  let exporter: import('../audit/log.js').LogExport | undefined;
  if (otlp !== undefined && otlp !== '') {
    const { openThreadedExport } = await import('../export/threaded.js');
    try {
      exporter = openThreadedExport(otlp, resolved, (m) => io.stderr.write(`toolgate: ${m}\n`));
    } catch (err) {
      throw new UsageError(
        `--otlp: ${err instanceof Error ? err.message : String(err)}`,
        "give the collector's OTLP/HTTP URL, e.g. http://127.0.0.1:4318",
      );
    }
  }
  try {
    fs.mkdirSync(path.dirname(resolved), { recursive: true, mode: 0o700 });
    return await DecisionLog.open(resolved, {
      checkpointPath: checkpointPathOf(resolved),
      // A decision is answered only once its record is on disk (#18/#20: batched flushes).
      durable: true,
      redact: values['log-verbatim'] !== true,
      ...(signingKey !== undefined && { signingKey }),
      ...(exporter !== undefined && { export: exporter }),
    });
  } catch (err) {
    throw logOpenError(err, resolved) ?? err;
  }
}

type LogValues = {
  log?: string | undefined;
  'log-key'?: string | undefined;
  'log-verbatim'?: boolean | undefined;
  otlp?: string | undefined;
};

/**
 * The decision log and its key as absolute paths: from --log / --log-key, else $TOOLGATE_LOG /
 * $TOOLGATE_LOG_KEY; a relative one is the project's (projectRoot from `cwd`). The one place
 * both the log's writer (logFor) and its protection (own-files.ts) read them.
 */
export function logPathsOf(
  values: LogValues,
  io: CliIO,
  cwd: string,
): { log: string | undefined; logKey: string | undefined } {
  const file = values.log ?? io.env.TOOLGATE_LOG;
  const key = values['log-key'] ?? io.env.TOOLGATE_LOG_KEY;
  if ((file === undefined || file === '') && (key === undefined || key === '')) {
    return { log: undefined, logKey: undefined };
  }
  const root = projectRoot(cwd, io.env);
  const at = (f: string | undefined) =>
    f === undefined || f === '' ? undefined : path.isAbsolute(f) ? f : path.resolve(root, f);
  return { log: at(file), logKey: file === undefined || file === '' ? undefined : at(key) };
}

/** A log that cannot be opened for a reason the caller can fix, as a usage error saying how. */
function logOpenError(err: unknown, file: string): UsageError | undefined {
  const dir = path.dirname(file);
  const other = 'or name another file with --log (or TOOLGATE_LOG)';
  switch (errnoCode(err)) {
    case 'ENOENT':
      return new UsageError(
        `cannot open the decision log ${file}: there is no directory ${dir}`,
        `mkdir -p ${dir}, ${other}`,
      );
    case 'ENOTDIR':
      return new UsageError(
        `cannot open the decision log ${file}: a part of ${dir} is not a directory`,
        `name another file with --log (or TOOLGATE_LOG)`,
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new UsageError(
        `cannot write the decision log ${file}: permission denied`,
        `make it writable, ${other}`,
      );
    case 'EISDIR':
      return new UsageError(
        `cannot open the decision log ${file}: it is a directory`,
        `name a file in it, ${other}`,
      );
    default:
      return undefined;
  }
}
