import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../policy/discovery.js';
import { PolicyError, readPolicyText } from '../policy/policy-file.js';
import { readTrustStore, recordTrust, removeTrust, trustStorePath } from '../policy/trust.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate trust [PATH]... [--remove] [--list] [--cwd D]

A project's own policy files (.toolgate/policy.yaml, .toolgate/policy.local.yaml and the files
they extend) come with the repository, so until you trust them only their deny and ask rules
apply. \`toolgate trust\` records the sha256 of each file's current content in your config
($XDG_CONFIG_HOME/toolgate/trusted.json, else ~/.config/toolgate/trusted.json); once its
content changes, a file is untrusted again. Read a file before you trust it.

  PATH       the files to trust (default: the project's .toolgate/policy.yaml and
             policy.local.yaml, found from the current directory as the hook finds them)
  --remove   forget them instead
  --list     print what is trusted, and whether each file still has that content
`;

export async function trustCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    remove: { type: 'boolean' },
    list: { type: 'boolean' },
    cwd: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const store = trustStorePath(io.env, os.homedir());
  if (values.list) {
    if (positionals.length > 0) throw new UsageError('--list takes no paths');
    const { store: s, problem } = readTrustStore(store);
    if (problem !== undefined) io.stderr.write(`toolgate trust: ${problem}\n`);
    const { trustCheckOf } = await import('../policy/trust.js');
    const check = trustCheckOf(s);
    for (const file of Object.keys(s.files).sort()) {
      let state: string;
      try {
        state = check(file, readPolicyText(file));
      } catch {
        state = 'missing';
      }
      io.stdout.write(
        `${state === 'trusted' ? 'trusted' : state === 'changed' ? 'changed' : state}  ${file}\n`,
      );
    }
    return 0;
  }
  const cwd = path.resolve(io.cwd, values.cwd ?? '.');
  const files =
    positionals.length > 0
      ? positionals.map((p) => path.resolve(io.cwd, p))
      : projectFiles(projectRoot(cwd, io.env));
  if (values.remove) {
    const removed = removeTrust(store, files);
    for (const f of removed) io.stdout.write(`no longer trusted: ${f}\n`);
    if (removed.length === 0) io.stdout.write('nothing to remove\n');
    return 0;
  }
  if (files.length === 0) {
    io.stderr.write(
      `toolgate trust: no .toolgate/policy.yaml or policy.local.yaml in ${projectRoot(cwd, io.env)}\n`,
    );
    return 2;
  }
  // Every file and what it extends, read as the hook reads them; one that does not load is not trusted.
  const entries: { file: string; text: string }[] = [];
  try {
    const { parsePolicyText } = await import('../policy/load.js');
    const { policyRootOf } = await import('../policy/policy-file.js');
    const visit = (file: string): void => {
      if (entries.some((e) => e.file === file)) return;
      const text = readPolicyText(file);
      const parsed = parsePolicyText(text, file, 'project', policyRootOf(file));
      entries.push({ file, text });
      for (const ext of parsed.extends)
        if (!ext.startsWith('builtin:')) visit(path.resolve(path.dirname(file), ext));
    };
    for (const f of files) visit(f);
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    io.stderr.write(`toolgate trust: nothing trusted:\n${err.message}\n`);
    return 2;
  }
  recordTrust(store, entries);
  const { sha256 } = await import('../policy/trust.js');
  for (const e of entries) io.stdout.write(`trusted ${e.file} (sha256 ${sha256(e.text).slice(0, 16)}…)\n`);
  io.stdout.write(`recorded in ${store}\n`);
  return 0;
}

function projectFiles(root: string): string[] {
  return ['policy.yaml', 'policy.local.yaml']
    .map((n) => path.join(root, '.toolgate', n))
    .filter((f) => fs.existsSync(f));
}
