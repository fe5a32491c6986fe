import fs from 'node:fs';
import path from 'node:path';
import { describe } from '../audit/error.js';
import { readPrivateKeyFile, readPublicKeyFile } from '../audit/key-file.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate bundle build PATH... -o BUNDLE --key KEY [--name N] [--version V] [--expires 30d|TIME] [--json]
       toolgate bundle verify BUNDLE --public-key KEY [--json]

A policy bundle is the policy files a fleet runs, signed: one JSON file holding the files, a
manifest (name, version, issued, notAfter, each file's sha256) and an Ed25519 signature over
the manifest. Machines pull it through a managed policy file's "bundle:" setting (see the
README, "Policy bundles for a fleet").

build   PATH is a policy file or a directory (its *.yaml, *.yml and *.json, in name order);
        each is a layer of the bundle, highest first, and every file they extend is put in
        too. Every policy is loaded first: a bundle that would be refused is never signed.
  -o, --out BUNDLE    where to write it
  --key KEY           the Ed25519 private key (PEM) that signs it
  --name N            what the bundle is (default: the first PATH's name)
  --version V         its revision (default: the time it is built, 20261202T154100Z)
  --expires D|TIME    when machines stop using it: 30d, 12h, 90m after now, or an ISO time
                      (default 30d); a machine whose copy expired refuses every call
verify  checks the signature, every file's digest, and the expiry.
  --public-key KEY    the Ed25519 public key (PEM) it must be signed with

Exit status: 0 built / verified; 1 the bundle cannot be used; 2 usage errors.
`;

export async function bundleCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    (sub === undefined ? io.stderr : io.stdout).write(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'build') return build(rest, io);
  if (sub === 'verify') return verifyBundle(rest, io);
  throw new UsageError(
    `unknown bundle command "${sub}"`,
    'use toolgate bundle build or toolgate bundle verify',
  );
}

async function build(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    out: { type: 'string', short: 'o' },
    key: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
    expires: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError('missing PATH', 'name the policy files or their directory');
  if (values.out === undefined) throw new UsageError('missing -o BUNDLE');
  if (values.key === undefined)
    throw new UsageError('missing --key KEY', 'give the Ed25519 private key (PEM)');
  const { buildBundle, expiryOf } = await import('../bundle/build.js');
  const issued = new Date();
  const notAfter = expiryOf(values.expires ?? '30d', issued);
  if (notAfter === undefined)
    throw new UsageError(
      `--expires ${values.expires}: not a duration or a time`,
      'write 30d, 12h, 90m or an ISO time',
    );
  const key = await readPrivateKeyFile(path.resolve(io.cwd, values.key)).catch((err: unknown) => {
    throw new UsageError(`--key ${describe(err)}`);
  });
  const policies = positionals.flatMap((p) => policyFilesAt(path.resolve(io.cwd, p)));
  const { files, layers } = await collectFiles(policies);
  const name = values.name ?? path.basename(positionals[0]!).replace(/\.(ya?ml|json)$/, '');
  const version = values.version ?? issued.toISOString().replace(/[-:]|\.\d+/g, '');
  let text: string;
  try {
    text = buildBundle({ name, version, issued, notAfter, files, policies: layers, key });
  } catch (err) {
    throw new UsageError(`cannot build the bundle: ${describe(err)}`);
  }
  const out = path.resolve(io.cwd, values.out);
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o644 });
  fs.renameSync(tmp, out);
  const summary = {
    bundle: out,
    name,
    version,
    notAfter: notAfter.toISOString(),
    policies: layers,
    files: [...files.keys()],
  };
  if (values.json) io.stdout.write(`${JSON.stringify(summary)}\n`);
  else
    io.stdout.write(
      `${out}: ${name}@${version}, ${files.size} file(s) (${layers.join(', ')}), valid until ${summary.notAfter}\n`,
    );
  return 0;
}

/** A file as itself; a directory as its policy files in name order. */
function policyFilesAt(p: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch (err) {
    throw new UsageError(`cannot read ${p}: ${describe(err)}`);
  }
  if (!stat.isDirectory()) return [p];
  const found = fs
    .readdirSync(p)
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort()
    .map((n) => path.join(p, n));
  if (found.length === 0) throw new UsageError(`${p} holds no *.yaml, *.yml or *.json file`);
  return found;
}

/**
 * Loads the policies as the managed layer would (following `extends`, every error refusing
 * the build) and keeps every file read, by its path relative to the directory they share.
 */
async function collectFiles(
  policies: readonly string[],
): Promise<{ files: Map<string, string>; layers: string[] }> {
  const [{ readPolicyLayers }, { parsePolicyText }, { PolicyError, formatProblem }] = await Promise.all([
    import('../policy/layer-files.js'),
    import('../policy/load.js'),
    import('../policy/policy-file.js'),
  ]);
  const read = new Map<string, string>();
  try {
    readPolicyLayers(
      policies.map((file) => ({ file, layer: 'managed' as const })),
      (text, source, layer, root) => {
        const parsed = parsePolicyText(text, source, layer, root);
        if (parsed.bundle !== undefined)
          throw new PolicyError([
            { file: source, message: 'a bundle cannot name another bundle ("bundle:")' },
          ]);
        if (!source.startsWith('builtin:')) read.set(source, text);
        return parsed;
      },
    );
  } catch (err) {
    if (err instanceof PolicyError)
      throw new UsageError(
        `a policy in the bundle was refused:\n${err.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`,
        'fix it first: a machine would refuse the bundle',
      );
    throw err;
  }
  const base = commonDir([...read.keys()]);
  const files = new Map<string, string>();
  for (const [file, text] of read) files.set(path.relative(base, file).split(path.sep).join('/'), text);
  return { files, layers: policies.map((f) => path.relative(base, f).split(path.sep).join('/')) };
}

function commonDir(files: readonly string[]): string {
  let dir = path.dirname(files[0]!);
  while (!files.every((f) => f.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)))
    dir = path.dirname(dir);
  return dir;
}

async function verifyBundle(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    'public-key': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(positionals.length === 0 ? 'missing BUNDLE' : 'give exactly one BUNDLE');
  if (values['public-key'] === undefined) throw new UsageError('missing --public-key KEY');
  const key = await readPublicKeyFile(path.resolve(io.cwd, values['public-key'])).catch((err: unknown) => {
    throw new UsageError(`--public-key ${describe(err)}`);
  });
  const file = path.resolve(io.cwd, positionals[0]!);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${describe(err)}`);
  }
  const { openBundle } = await import('../bundle/format.js');
  const opened = openBundle(text, key);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify(opened.ok ? { bundle: file, ok: true, id: opened.bundle.id, manifest: opened.bundle.manifest } : { bundle: file, ...opened })}\n`,
    );
  } else if (opened.ok) {
    const m = opened.bundle.manifest;
    io.stdout.write(
      `${positionals[0]}: ${opened.bundle.id}, signature verified, ${m.files.length} file(s), issued ${m.issued}, valid until ${m.notAfter}\n`,
    );
  } else {
    io.stderr.write(`toolgate bundle verify: ${positionals[0]}: ${opened.kind}: ${opened.message}\n`);
  }
  return opened.ok ? 0 : 1;
}
