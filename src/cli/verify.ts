import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { checkpointPathOf, verifyingKeyOf } from '../audit/checkpoint.js';
import { describe } from '../audit/error.js';
import { type VerifyResult, verifyLog } from '../audit/verify.js';
import { readWitness, type Witness } from '../audit/witness.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { fileProgress, logFilesOf } from './log-files.js';

const HELP = `usage: toolgate verify LOG... [--checkpoint FILE] [--public-key FILE] [--witness FILE|URL [--witness-log HOST:PATH]] [--deep] [--json]

Checks that a decision log's hash chain is intact. If it is not, names the first bad record
and what is wrong with it: edited, inserted, removed, reordered, truncated, not-json,
newer-version, rewritten, unwitnessed (or missing, empty, checkpoint, witness). Reads only;
never writes anything. Many LOGs, or a directory (every *.jsonl below it: a fleet's logs), are
each verified against their own checkpoint, with a count of intact and broken logs at the end.

  --checkpoint FILE   the log's checkpoint (default LOG.checkpoint, which every toolgate command
                      that writes LOG keeps): without one, records cut off the end go unnoticed
  --public-key FILE   Ed25519 public key (PEM): the checkpoint (and the witness's) must carry a
                      valid signature
  --witness FILE|URL  what the collector received (JSON Lines: the exported records and
                      checkpoints, or OTLP/JSON requests as a collector's file exporter writes
                      them): the log must hold exactly those records, and none after them
  --witness-log H:P   the log's entries in a witness that holds many ("host:path", as exported)
  --deep              also check every record is a well-formed v1 record in canonical form
  --json              print the result as JSON

Exit status: 0 intact; 1 not intact or cannot be verified; 2 usage errors.
`;

export async function verifyCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    checkpoint: { type: 'string' },
    'public-key': { type: 'string' },
    witness: { type: 'string' },
    'witness-log': { type: 'string' },
    deep: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('missing LOG');
  const logs = logFilesOf(positionals, io.cwd);
  if (logs.length > 1 && (values.checkpoint !== undefined || values.witness !== undefined))
    throw new UsageError(
      `${values.checkpoint !== undefined ? '--checkpoint' : '--witness'} belongs to one log, and ${logs.length} were given`,
      'verify that log alone',
    );
  if (values['witness-log'] !== undefined && values.witness === undefined)
    throw new UsageError('--witness-log picks entries of a witness: give --witness too');
  const publicKey =
    values['public-key'] === undefined ? undefined : await readKey(resolve(io.cwd, values['public-key']));
  const progress = fileProgress(io.stderr, 'verifying', logs.length);
  let bad = 0;
  for (const [i, log] of logs.entries()) {
    progress.at(i, log);
    const named = positionals.length === 1 && log === resolve(io.cwd, positionals[0]!);
    const name = named ? positionals[0]! : relative(io.cwd, log) || log;
    const ok = await verifyOne(log, name, values, publicKey, io);
    if (!ok) bad++;
  }
  progress.done();
  if (logs.length > 1) {
    const line = `${logs.length} log(s): ${logs.length - bad} intact, ${bad} not intact or not verifiable\n`;
    if (values.json) io.stderr.write(line);
    else (bad > 0 ? io.stderr : io.stdout).write(line);
  }
  return bad === 0 ? 0 : 1;
}

async function verifyOne(
  log: string,
  name: string,
  values: {
    checkpoint?: string;
    'public-key'?: string;
    witness?: string;
    'witness-log'?: string;
    deep?: boolean;
    json?: boolean;
  },
  publicKey: KeyObject | undefined,
  io: CliIO,
): Promise<boolean> {
  // The writers' checkpoint, when it is there; with a public key (and no witness) it must be.
  const beside = checkpointPathOf(log);
  const checkpointPath =
    values.checkpoint !== undefined
      ? resolve(io.cwd, values.checkpoint)
      : (values['public-key'] !== undefined && values.witness === undefined) || existsSync(beside)
        ? beside
        : undefined;
  let result: VerifyResult | undefined;
  let witness: Witness | undefined;
  if (values.witness !== undefined) {
    const source = /^https?:\/\//.test(values.witness) ? values.witness : resolve(io.cwd, values.witness);
    const read = await readWitness(source, {
      ...(publicKey !== undefined && { publicKey }),
      ...(values['witness-log'] !== undefined && { log: values['witness-log'] }),
    });
    if (read.ok) witness = read.witness;
    else result = { ok: false, kind: 'witness', message: read.message, verified: 0 };
  }
  result ??= await verifyLog(log, {
    ...(checkpointPath !== undefined && { checkpointPath }),
    ...(publicKey !== undefined && { publicKey }),
    ...(witness !== undefined && { witness }),
    deep: values.deep === true,
  });
  if (values.json) io.stdout.write(`${JSON.stringify({ log, ...result })}\n`);
  else report(io, name, result, checkpointPath !== undefined || witness !== undefined);
  return result.ok;
}

async function readKey(path: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --public-key ${path}: ${describe(err)}`);
  }
  try {
    return verifyingKeyOf(pem);
  } catch (err) {
    throw new UsageError(`--public-key ${path}: ${describe(err)}`);
  }
}

function report(io: CliIO, log: string, result: VerifyResult, withCheckpoint: boolean): void {
  if (!result.ok) {
    const where =
      result.line === undefined
        ? ''
        : ` at line ${result.line}${result.seq === undefined ? '' : ` (seq ${result.seq})`}`;
    io.stderr.write(`toolgate verify: ${log}: ${result.kind}${where}: ${result.message}\n`);
    if (result.line !== undefined) io.stderr.write(`  ${result.verified} record(s) before it verified\n`);
    return;
  }
  io.stdout.write(`${log}: intact, ${result.count} record(s), head ${result.head}\n`);
  const cp = result.checkpoint;
  if (cp !== undefined) {
    const signature = cp.verified
      ? 'signature verified'
      : cp.signed
        ? 'signed, signature not checked (no --public-key)'
        : 'not signed';
    io.stdout.write(`checkpoint: ${cp.count} record(s) at ${cp.ts}, ${signature}\n`);
    if (cp.beyond > 0 && result.witness === undefined)
      io.stderr.write(`warning: ${cp.beyond} record(s) after the checkpoint are not covered by it\n`);
  }
  const w = result.witness;
  if (w !== undefined) {
    io.stdout.write(
      `witness: every record matches (${w.records} record(s) and ${w.checkpoints} checkpoint(s), up to seq ${w.covers})\n`,
    );
  } else if (cp === undefined && !withCheckpoint) {
    io.stderr.write('note: no --checkpoint: records cut off the end of the log cannot be detected\n');
  }
}
