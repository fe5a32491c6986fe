import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownFilesOf } from '../../src/cli/own-files.js';

/** src/cli/own-files.ts: which files a run of toolgate counts as its own. */
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ownfiles-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const env = {
  XDG_CONFIG_HOME: path.join(base, 'cfg'),
  XDG_CACHE_HOME: path.join(base, 'cache'),
  XDG_STATE_HOME: path.join(base, 'state'),
};

describe('ownFilesOf', () => {
  it('the log, its lock and checkpoint, the key, the trust store, policy files, the cache, pulled bundles', () => {
    const own = ownFilesOf({
      log: path.join(base, 'l.jsonl'),
      logKey: path.join(base, 'k.pem'),
      policyFiles: ['builtin:default', path.join(base, 'p.yaml')],
      env,
      program: undefined,
    });
    expect(new Set(own.map((o) => o.path))).toEqual(
      new Set([
        path.join(base, 'l.jsonl'),
        path.join(base, 'l.jsonl.lock'),
        path.join(base, 'l.jsonl.checkpoint'),
        // the OTLP export cursor and its lock (446167a): toolgate's own too
        path.join(base, 'l.jsonl.exported'),
        path.join(base, 'l.jsonl.exported.lock'),
        path.join(base, 'k.pem'),
        path.join(base, 'cfg', 'toolgate', 'trusted.json'),
        path.join(base, 'p.yaml'),
        path.join(base, 'cache', 'toolgate'),
        // a managed bundle's last known good (src/bundle): put back older, it rolls the policy back
        path.join(base, 'state', 'toolgate', 'bundles'),
      ]),
    );
  });

  it('a log behind a symlinked directory is listed where the link leads too', () => {
    fs.mkdirSync(path.join(base, 'real'));
    fs.symlinkSync(path.join(base, 'real'), path.join(base, 'link'));
    const own = ownFilesOf({
      log: path.join(base, 'link', 'l.jsonl'),
      logKey: undefined,
      policyFiles: [],
      env,
      program: undefined,
    });
    expect(own.map((o) => o.path)).toContain(path.join(base, 'real', 'l.jsonl'));
  });

  it('a built program: its bin link (and where it leads), dist, package.json and node_modules; sources: nothing', () => {
    const pkg = path.join(base, 'lib', 'node_modules', 'toolgate');
    fs.mkdirSync(path.join(pkg, 'dist', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'dist', 'cli', 'main.js'), '');
    fs.mkdirSync(path.join(base, 'bin'));
    const bin = path.join(base, 'bin', 'toolgate');
    fs.symlinkSync(path.join(pkg, 'dist', 'cli', 'main.js'), bin);
    const own = ownFilesOf({ log: undefined, logKey: undefined, policyFiles: [], env, program: bin });
    const program = own.filter((o) => o.what === 'the toolgate program').map((o) => o.path);
    expect(new Set(program)).toEqual(
      new Set([
        bin,
        path.join(pkg, 'dist', 'cli', 'main.js'),
        path.join(pkg, 'dist'),
        path.join(pkg, 'package.json'),
        path.join(pkg, 'node_modules'),
      ]),
    );
    const fromSources = ownFilesOf({
      log: undefined,
      logKey: undefined,
      policyFiles: [],
      env,
      program: '/w/src/cli/main.ts',
    });
    expect(fromSources.some((o) => o.what === 'the toolgate program')).toBe(false);
  });
});
