import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createDecisionServer } from '../adapters/http-server.js';
import type { AutoClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { parseCliArgs } from './args.js';
import { current, nextReloadMs } from './bundle-watch.js';
import type { CliIO } from './io.js';
import { errnoCode, UsageError } from './io.js';
import { classifierFor, logFor, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';
import { onStopSignal } from './stop-signals.js';

/** How long requests in flight may take to finish after SIGTERM before they are cut. */
const SERVE_STOP_GRACE_MS = 5_000;

const HELP = `usage: toolgate serve [--port P] [--host H] | [--socket S]  [--policy F]... [--log FILE [--log-key KEY] [--log-verbatim] [--otlp URL]] [--max-body BYTES]

Answers decisions from a warm process over HTTP (loopback by default, or a unix socket):
  POST /hook     Claude Code http hook (hook JSON in, hook JSON out; failures answer deny)
  POST /decide   {"tool", "input", "cwd", "mode"?} -> a Decision
  GET  /health
SIGHUP reloads the policy (a broken policy keeps the old one and says why; a managed policy
bundle is pulled again every pollSeconds, and once it expires every call is denied until a
fresh one is pulled); SIGTERM and SIGINT
stop accepting, give what is in flight 5 s to finish (then cut it), close the log and exit 0.

As a Claude Code hook:
  {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "http", "url": "http://127.0.0.1:8787/hook"}]}]}}
`;

export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCliArgs(argv, {
    ...POLICY_OPTIONS,
    port: { type: 'string' },
    host: { type: 'string' },
    socket: { type: 'string' },
    'max-body': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.socket && (values.port || values.host))
    throw new UsageError('--socket cannot be combined with --port or --host');
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0-65535 (got ${values.port})`);
  const maxBody = values['max-body'] === undefined ? undefined : Number(values['max-body']);
  if (maxBody !== undefined && !(Number.isInteger(maxBody) && maxBody > 0))
    throw new UsageError('--max-body must be a positive integer');
  const host = values.host ?? '127.0.0.1';
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) {
    io.stderr.write(
      `toolgate serve: warning: listening on ${host}, not loopback; anyone who reaches it can ask for decisions\n`,
    );
  }

  let policy: CompiledPolicy;
  let classifier: AutoClassifier | undefined;
  try {
    policy = await policyFor(values, io);
    classifier = await classifierFor(policy, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate serve: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log = await logFor(values, io);
  const server = createDecisionServer({
    // A bundle that expired while serving refuses every call until a reload brings a fresh one.
    policy: () => current(policy),
    classifier: () => classifier,
    log,
    ...(maxBody ? { maxBodyBytes: maxBody } : {}),
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, values.socket, `${host}:${port}`)));
    if (values.socket) {
      if (fs.existsSync(values.socket)) fs.unlinkSync(values.socket);
      server.listen(values.socket, () => resolve());
    } else server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const where =
    typeof address === 'string'
      ? `unix:${address}`
      : `http://${host.includes(':') ? `[${host}]` : host}:${(address as AddressInfo).port}`;
  io.stdout.write(`${JSON.stringify({ listening: where, policyDigest: policy.digest })}\n`);

  // Bundles are pulled again every pollSeconds, and at their expiry (bundle-watch.ts).
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    clearTimeout(timer);
    const ms = nextReloadMs(policy, new Date());
    if (ms !== undefined) timer = setTimeout(() => void reload(true), ms).unref();
  };
  const reload = async (quiet = false): Promise<void> => {
    const before = policy.digest;
    try {
      const next = await policyFor(values, io);
      classifier = await classifierFor(next, io);
      policy = next;
      if (!quiet || policy.digest !== before)
        io.stderr.write(`toolgate serve: policy reloaded (${policy.digest.slice(0, 12)})\n`);
    } catch (err) {
      io.stderr.write(
        `toolgate serve: reload refused, keeping the previous policy: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
    schedule();
  };
  schedule();
  process.on('SIGHUP', () => void reload());
  await new Promise<void>((resolve) => {
    onStopSignal(
      () => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // A request still open after the grace period (a slow client, a slow classifier) is cut.
        setTimeout(() => server.closeAllConnections(), SERVE_STOP_GRACE_MS).unref();
      },
      SERVE_STOP_GRACE_MS + 1_000,
      ['SIGTERM', 'SIGINT'],
    );
  });
  clearTimeout(timer);
  await log?.close();
  if (values.socket) fs.rmSync(values.socket, { force: true });
  return 0;
}

/** An address the user chose that cannot be listened on, as one line saying what to choose instead. */
function listenError(err: Error, socket: string | undefined, address: string): Error {
  const where = socket === undefined ? address : socket;
  const instead = socket === undefined ? 'another --port (0 picks a free one)' : 'another --socket';
  // node reports a socket in a missing directory as EACCES
  if (socket !== undefined && !fs.existsSync(path.dirname(path.resolve(socket))))
    return new UsageError(
      `cannot listen on ${socket}: there is no directory ${path.dirname(socket)}`,
      `mkdir -p ${path.dirname(socket)} or choose ${instead}`,
    );
  switch (errnoCode(err)) {
    case 'EADDRINUSE':
      return new UsageError(`${where} is already in use`, `stop what listens there or choose ${instead}`);
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`cannot listen on ${where}: permission denied`, `choose ${instead}`);
    case 'EADDRNOTAVAIL':
    case 'ENOENT':
      return new UsageError(`cannot listen on ${where}: no such address here`, `choose ${instead}`);
    default:
      return err;
  }
}
