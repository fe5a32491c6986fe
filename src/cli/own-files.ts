import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleStateDir } from '../bundle/state-dir.js';
import { userCacheDir } from '../cache/dir.js';
import type { OwnFile } from '../policy/own-files.js';
import { trustStorePath } from '../policy/trust.js';

/**
 * The files this run of toolgate keeps or runs from (src/policy/own-files.ts says why they are
 * protected): only the command knows them, from its options, its environment and where it is
 * installed. Each is listed as written and where its symlinks lead.
 */
export function ownFilesOf(options: {
  /** The decision log and its signing key, resolved as logFor opens them; undefined without --log. */
  readonly log: string | undefined;
  readonly logKey: string | undefined;
  /** The policy files read (builtin: names are not files). */
  readonly policyFiles: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The running program (process.argv[1]); its build directory is protected when it is one. */
  readonly program: string | undefined;
}): OwnFile[] {
  const out: OwnFile[] = [];
  const add = (p: string | undefined, what: string, replaced = false) => {
    if (p === undefined || !path.isAbsolute(p)) return;
    for (const q of new Set([path.resolve(p), realpath(p)]))
      out.push({ path: q, what, ...(replaced ? { replaced: true as const } : {}) });
  };
  if (options.log !== undefined) {
    // All of them live in the log's directory, where the log's writers create, rename and
    // remove files while commands run (OwnFile.replaced): the jail holds that directory.
    add(options.log, 'the decision log', true);
    // The lock serializes writers; the checkpoint (audit/checkpoint.ts) is what verify trusts.
    add(`${options.log}.lock`, "the decision log's lock", true);
    add(`${options.log}.checkpoint`, "the decision log's checkpoint", true);
    // The export cursor (src/export/cursor.ts): moved on, records would never leave the machine.
    add(`${options.log}.exported`, "the decision log's export cursor", true);
    add(`${options.log}.exported.lock`, "the decision log's export lock", true);
  }
  add(options.logKey, "the decision log's signing key");
  // `toolgate trust` replaces it by a rename (policy/trust.ts).
  add(trustStorePath(options.env, os.homedir()), 'the trust store', true);
  for (const f of options.policyFiles) if (!f.startsWith('builtin:')) add(f, 'a policy file toolgate reads');
  add(userCacheDir(options.env), "toolgate's cache (compiled code and parsed policies it runs)");
  // A managed bundle's last known good (src/bundle): put back older, it would roll the policy back.
  add(bundleStateDir(options.env, os.homedir()), 'the policy bundles toolgate pulled');
  for (const dir of programDirs(options.program)) add(dir, 'the toolgate program');
  return out;
}

/**
 * Where the running toolgate lives, when it runs from a build (`.../dist/cli/main.js`): the
 * build, its package.json and the node_modules it loads, and the command's own path (a bin
 * symlink). From sources (tsx, a development checkout) nothing: the sources are the
 * developer's workspace.
 */
function programDirs(program: string | undefined): string[] {
  if (program === undefined || !path.isAbsolute(program)) return [];
  const real = realpath(program);
  if (!/\.c?js$/.test(real)) return [];
  const dist = path.dirname(path.dirname(real));
  if (path.basename(dist) !== 'dist') return [program];
  const root = path.dirname(dist);
  return [program, dist, path.join(root, 'package.json'), path.join(root, 'node_modules')];
}

function realpath(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    // Not there yet (a log not yet made): its directory may still be a link.
    try {
      return path.join(fs.realpathSync.native(path.dirname(p)), path.basename(p));
    } catch {
      return path.resolve(p);
    }
  }
}
