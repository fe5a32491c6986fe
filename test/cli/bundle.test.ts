/**
 * Signed policy bundles through the public contract: `toolgate bundle build|verify`, and a
 * managed policy file's `bundle:` pulled from a real HTTP server on loopback by `check` and
 * `hook` (the real CLI). Tampered, wrong key, expired, server down (the last known good is
 * used), never fetched (every call refused), rollback, ETag.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBundle } from '../../src/bundle/build.js';
import { bundleStateDir, copyOf } from '../../src/bundle/pull.js';
import { ECHO_COMMAND, startProxyProcess } from '../adapters/fixtures/proxy-process.js';
import { MAIN, runCli } from '../helpers/cli.js';

const TSX = path.join(path.dirname(MAIN), '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

/** Waits for `probe` to give a value (polling; no timing is asserted). */
async function until<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

import { runMain } from '../helpers/main-in-process.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bundle-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
let dir = '';

function keyPair(): { privateKey: KeyObject; publicKey: KeyObject; priv: string; pub: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey,
    publicKey,
    priv: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    pub: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
const fleetKey = keyPair();
const otherKey = keyPair();

const PUSH_DENIED = 'version: 1\nrules:\n  - deny: "Bash(git push *)"\n    reason: pushes go through CI\n';
const CURL_DENIED = 'version: 1\nrules:\n  - deny: "Bash(curl *)"\n';

function bundleOf(
  text: string,
  o: { version?: string; issued?: Date; notAfter?: Date; key?: KeyObject } = {},
): string {
  const issued = o.issued ?? new Date();
  return buildBundle({
    name: 'fleet',
    version: o.version ?? '1',
    issued,
    notAfter: o.notAfter ?? new Date(issued.getTime() + 86_400_000),
    files: new Map([['policy.yaml', text]]),
    policies: ['policy.yaml'],
    key: o.key ?? fleetKey.privateKey,
  });
}

beforeEach(() => {
  dir = path.join(root, String(++n));
  fs.mkdirSync(dir, { mode: 0o700 });
});

describe('toolgate bundle build and verify', () => {
  beforeEach(() => {
    fs.writeFileSync(path.join(dir, 'fleet.pem'), fleetKey.priv);
    fs.writeFileSync(path.join(dir, 'fleet.pub'), fleetKey.pub);
    fs.writeFileSync(path.join(dir, 'other.pub'), otherKey.pub);
    fs.mkdirSync(path.join(dir, 'policies'));
    fs.writeFileSync(path.join(dir, 'policies', 'base.yaml'), CURL_DENIED);
    fs.writeFileSync(path.join(dir, 'policies', 'policy.yaml'), `extends: base.yaml\n${PUSH_DENIED}`);
  });
  const cli = (...argv: string[]) => runMain(['bundle', ...argv], { cwd: dir });

  it('builds a bundle of a directory (with what it extends) that verifies', async () => {
    const built = await cli(
      'build',
      'policies',
      '-o',
      'b.json',
      '--key',
      'fleet.pem',
      '--version',
      '7',
      '--json',
    );
    expect(built).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(built.stdout)).toMatchObject({
      name: 'policies',
      version: '7',
      files: ['base.yaml', 'policy.yaml'],
    });
    const v = await cli('verify', 'b.json', '--public-key', 'fleet.pub');
    expect(v).toMatchObject({ code: 0, stderr: '' });
    expect(v.stdout).toMatch(/policies@7, signature verified, 2 file\(s\)/);
  });

  it('refuses to sign a policy that would be refused', async () => {
    fs.writeFileSync(
      path.join(dir, 'policies', 'bad.yaml'),
      'version: 1\nrules:\n  - deny: "Bash(git push"\n',
    );
    const r = await cli('build', 'policies', '-o', 'b.json', '--key', 'fleet.pem');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:3.*bad deny rule/);
    expect(fs.existsSync(path.join(dir, 'b.json'))).toBe(false);
  });

  it('finds a file changed after signing (tampered)', async () => {
    await cli('build', 'policies', '-o', 'b.json', '--key', 'fleet.pem');
    const b = JSON.parse(fs.readFileSync(path.join(dir, 'b.json'), 'utf8'));
    b.files['policy.yaml'] = b.files['policy.yaml'].replace('deny', 'allow');
    fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify(b));
    const r = await cli('verify', 'b.json', '--public-key', 'fleet.pub');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tampered: policy\.yaml is not the file the manifest signed/);
  });

  it('finds a manifest changed after signing, and a file added to the bundle', async () => {
    await cli('build', 'policies', '-o', 'b.json', '--key', 'fleet.pem');
    const b = JSON.parse(fs.readFileSync(path.join(dir, 'b.json'), 'utf8'));
    fs.writeFileSync(
      path.join(dir, 'm.json'),
      JSON.stringify({ ...b, manifest: { ...b.manifest, notAfter: '2999-01-01T00:00:00.000Z' } }),
    );
    fs.writeFileSync(
      path.join(dir, 'f.json'),
      JSON.stringify({ ...b, files: { ...b.files, 'x.yaml': 'version: 1\n' } }),
    );
    const m = await cli('verify', 'm.json', '--public-key', 'fleet.pub');
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/bad-signature/);
    const f = await cli('verify', 'f.json', '--public-key', 'fleet.pub');
    expect(f.code).toBe(1);
    expect(f.stderr).toMatch(/tampered: x\.yaml is in the bundle but not in its manifest/);
  });

  it('refuses a bundle signed with another key', async () => {
    await cli('build', 'policies', '-o', 'b.json', '--key', 'fleet.pem');
    const r = await cli('verify', 'b.json', '--public-key', 'other.pub');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/wrong-key: signed by key [0-9a-f]{16}, not by the configured key/);
  });

  it('refuses an expired bundle', async () => {
    const issued = new Date(Date.now() - 2 * 86_400_000);
    fs.writeFileSync(
      path.join(dir, 'old.json'),
      bundleOf(PUSH_DENIED, { issued, notAfter: new Date(Date.now() - 1000) }),
    );
    const r = await cli('verify', 'old.json', '--public-key', 'fleet.pub');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/expired: fleet@1 expired at/);
  });
});

/** A bundle server on loopback: what it serves can change, it can be stopped, it records requests. */
class BundleServer {
  body: string | undefined;
  etag = '"1"';
  requests: IncomingHttpHeaders[] = [];
  private server: Server | undefined;
  url = '';

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(req.headers);
      if (this.body === undefined) {
        res.writeHead(404).end();
        return;
      }
      if (req.headers['if-none-match'] === this.etag) {
        res.writeHead(304).end();
        return;
      }
      res.writeHead(200, { etag: this.etag, 'content-type': 'application/json' }).end(this.body);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/fleet.bundle`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

describe('a managed bundle: setting, pulled over HTTP, kept, verified', () => {
  const server = new BundleServer();
  let env: NodeJS.ProcessEnv = {};
  beforeEach(async () => {
    await server.start();
    server.requests = [];
    server.body = bundleOf(PUSH_DENIED);
    // The managed file: root-owned (this test runs as root, else it is skipped), mode 600.
    const managed = path.join(dir, 'etc', 'managed.yaml');
    fs.mkdirSync(path.dirname(managed), { mode: 0o755 });
    managedFile(300);
    fs.mkdirSync(path.join(dir, 'work'));
    env = { TOOLGATE_MANAGED_POLICY: managed, XDG_STATE_HOME: path.join(dir, 'state'), HOME: dir };
  });
  afterEach(() => server.stop());
  const managedFile = (pollSeconds: number) =>
    fs.writeFileSync(
      path.join(dir, 'etc', 'managed.yaml'),
      `version: 1\nbundle:\n  url: ${server.url}\n  publicKey: |\n${fleetKey.pub
        .trim()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n  pollSeconds: ${pollSeconds}\n`,
      { mode: 0o644 },
    );

  const check = (command: string) =>
    runMain(['check', '--tool', 'Bash', '--input', JSON.stringify({ command }), '--json', '--cwd', 'work'], {
      cwd: dir,
      env,
    });
  const decisionOf = (r: { stdout: string }) =>
    JSON.parse(r.stdout) as { behavior: string; rule?: { source: string } };
  const copy = () => copyOf(bundleStateDir(env, dir), server.url);
  /** As if pollSeconds had passed since the last pull. */
  const age = () => {
    const s = JSON.parse(fs.readFileSync(copy().stateFile, 'utf8'));
    fs.writeFileSync(copy().stateFile, JSON.stringify({ ...s, checkedAt: 0 }));
  };

  it.skipIf(process.getuid?.() !== 0)(
    'pulls once, decides by the bundle, and names it in the rule source and the decision',
    async () => {
      const r = await check('git push origin main');
      expect(r.code).toBe(0);
      expect(decisionOf(r)).toMatchObject({
        behavior: 'deny',
        rule: { source: 'bundle:fleet@1/policy.yaml' },
        policyBundles: ['fleet@1'],
      });
      expect(server.requests).toHaveLength(1);
      // Every decision names the bundle, not only one its rule made.
      expect(decisionOf(await check('ls'))).toMatchObject({ behavior: 'allow', policyBundles: ['fleet@1'] });
      // Fresh (within pollSeconds): the copy on disk, no request.
      expect(decisionOf(await check('git push origin main')).behavior).toBe('deny');
      expect(server.requests).toHaveLength(1);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'asks again with If-None-Match once pollSeconds passed; a new version applies',
    async () => {
      await check('ls');
      age();
      await check('ls');
      expect(server.requests[1]?.['if-none-match']).toBe('"1"');
      server.body = bundleOf(CURL_DENIED, { version: '2' });
      server.etag = '"2"';
      age();
      const r = await check('curl https://example.com');
      expect(decisionOf(r)).toMatchObject({
        behavior: 'deny',
        rule: { source: 'bundle:fleet@2/policy.yaml' },
      });
      expect(decisionOf(await check('git push origin main')).behavior).not.toBe('deny');
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'server down: the last known good is used, and the failed pull is said',
    async () => {
      await check('ls');
      await server.stop();
      age();
      const r = await check('git push origin main');
      expect(decisionOf(r)).toMatchObject({
        behavior: 'deny',
        rule: { source: 'bundle:fleet@1/policy.yaml' },
      });
      expect(r.stderr).toMatch(
        /the last pull failed \(cannot reach [^)]+\); using the last known good fleet@1/,
      );
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'never fetched: every call is refused, the hook blocks (exit 2) with the reason',
    async () => {
      await server.stop();
      const r = await check('ls');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /policy was refused, nothing is allowed:[\s\S]*no verified bundle was ever obtained.*ECONNREFUSED/,
      );
      const hook = await runCli(['hook'], {
        cwd: dir,
        env,
        stdin: JSON.stringify({
          session_id: 's',
          hook_event_name: 'PreToolUse',
          tool_name: 'Read',
          tool_input: { file_path: path.join(dir, 'work', 'x') },
          cwd: path.join(dir, 'work'),
          permission_mode: 'default',
        }),
      });
      expect(hook.code).toBe(2);
      expect(hook.stderr).toMatch(/no verified bundle was ever obtained/);
    },
  );

  it.skipIf(process.getuid?.() !== 0)('a server that answers 404 is never a bundle', async () => {
    server.body = undefined;
    const r = await check('ls');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/answered HTTP 404/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'tampered in transit: refused; the last known good stays, or nothing is allowed',
    async () => {
      const good = JSON.parse(bundleOf(PUSH_DENIED));
      good.files['policy.yaml'] = 'version: 1\n';
      server.body = JSON.stringify(good);
      const never = await check('ls');
      expect(never.code).toBe(2);
      expect(never.stderr).toMatch(/tampered: policy\.yaml is not the file the manifest signed/);
      server.body = bundleOf(PUSH_DENIED);
      server.etag = '"x"';
      await check('ls');
      server.body = JSON.stringify(good);
      server.etag = '"y"';
      age();
      const r = await check('git push origin main');
      expect(decisionOf(r)).toMatchObject({
        behavior: 'deny',
        rule: { source: 'bundle:fleet@1/policy.yaml' },
      });
      expect(r.stderr).toMatch(/sent a bundle that cannot be used: tampered/);
    },
  );

  it.skipIf(process.getuid?.() !== 0)('signed with another key: refused', async () => {
    server.body = bundleOf('version: 1\nmode: bypassPermissions\n', { key: otherKey.privateKey });
    const r = await check('git push origin main');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/wrong-key/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'expired: refused when served, and when the copy on disk expires',
    async () => {
      const issued = new Date(Date.now() - 2 * 86_400_000);
      server.body = bundleOf(PUSH_DENIED, { issued, notAfter: new Date(Date.now() - 1000) });
      const served = await check('ls');
      expect(served.code).toBe(2);
      expect(served.stderr).toMatch(/expired: fleet@1 expired at/);
      // A copy that was good when pulled and has expired since, while the server is down.
      fs.mkdirSync(path.dirname(copy().bundleFile), { recursive: true });
      fs.writeFileSync(copy().bundleFile, server.body);
      fs.writeFileSync(copy().stateFile, JSON.stringify({ checkedAt: Date.now() }));
      await server.stop();
      const kept = await check('ls');
      expect(kept.code).toBe(2);
      expect(kept.stderr).toMatch(/the copy on disk .* cannot be used: expired/);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'a copy on disk edited by someone is refused, not trusted for having been good',
    async () => {
      await check('ls');
      const b = JSON.parse(fs.readFileSync(copy().bundleFile, 'utf8'));
      b.files['policy.yaml'] = 'version: 1\nmode: bypassPermissions\n';
      fs.writeFileSync(copy().bundleFile, JSON.stringify(b));
      await server.stop();
      const r = await check('git push origin main');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the copy on disk .* cannot be used: tampered/);
    },
  );

  it.skipIf(process.getuid?.() !== 0)('an older bundle than the copy is refused as a rollback', async () => {
    await check('ls');
    server.body = bundleOf('version: 1\n', { version: '0', issued: new Date(Date.now() - 3_600_000) });
    server.etag = '"old"';
    age();
    const r = await check('git push origin main');
    expect(decisionOf(r)).toMatchObject({ behavior: 'deny', rule: { source: 'bundle:fleet@1/policy.yaml' } });
    expect(r.stderr).toMatch(/refused as a rollback/);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "the copies on disk are toolgate's own: writing one asks, in every mode",
    async () => {
      await check('ls');
      const r = await runMain(
        [
          'check',
          '--tool',
          'Write',
          '--input',
          JSON.stringify({ file_path: copy().bundleFile, content: '{}' }),
          '--json',
          '--cwd',
          'work',
          '--mode',
          'bypassPermissions',
        ],
        { cwd: dir, env },
      );
      expect(decisionOf(r).behavior).toBe('ask');
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'serve pulls again every pollSeconds, and refuses every call once its bundle expired',
    async () => {
      managedFile(1);
      const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', '--port', '0'], {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += String(d)));
      child.stderr.on('data', (d) => (stderr += String(d)));
      try {
        const base = await until(() =>
          stdout.includes('\n') ? JSON.parse(stdout.split('\n')[0]!).listening : undefined,
        );
        const decide = async (command: string) => {
          const r = await fetch(`${base}/decide`, {
            method: 'POST',
            body: JSON.stringify({ tool: 'Bash', input: { command }, cwd: path.join(dir, 'work') }),
          });
          return {
            status: r.status,
            body: (await r.json()) as { behavior?: string; rule?: { source: string }; error?: string },
          };
        };
        expect((await decide('git push origin main')).body).toMatchObject({
          behavior: 'deny',
          rule: { source: 'bundle:fleet@1/policy.yaml' },
        });
        // A new version on the server is taken up without a SIGHUP.
        server.body = bundleOf(CURL_DENIED, { version: '2' });
        server.etag = '"2"';
        await until(async () =>
          (await decide('curl https://x.example')).body.rule?.source === 'bundle:fleet@2/policy.yaml'
            ? true
            : undefined,
        );
        // One that expires soon; then the server goes down: the copy is used until it expires.
        server.body = bundleOf(CURL_DENIED, { version: '3', notAfter: new Date(Date.now() + 3000) });
        server.etag = '"3"';
        await until(async () =>
          (await decide('curl https://x.example')).body.rule?.source === 'bundle:fleet@3/policy.yaml'
            ? true
            : undefined,
        );
        await server.stop();
        const refused = await until(async () => {
          const r = await decide('ls');
          return r.status === 500 ? r : undefined;
        });
        expect(refused.body.error).toMatch(/nothing is allowed: policy bundle .*fleet@3 expired at/);
        const hook = await fetch(`${base}/hook`, {
          method: 'POST',
          body: JSON.stringify({
            session_id: 's',
            hook_event_name: 'PreToolUse',
            tool_name: 'Read',
            tool_input: { file_path: path.join(dir, 'work', 'x') },
            cwd: path.join(dir, 'work'),
            permission_mode: 'default',
          }),
        });
        expect(JSON.stringify(await hook.json())).toMatch(/"permissionDecision":"deny".*fleet@3 expired/);
        expect((await fetch(`${base}/health`)).status).toBe(503);
      } finally {
        child.kill('SIGKILL');
      }
      expect(stderr).not.toMatch(/internal error/);
    },
    60_000,
  );

  it.skipIf(process.getuid?.() !== 0)(
    'mcp-proxy stops when its bundle expires, saying why',
    async () => {
      // Valid long enough for a proxy started from source on a loaded machine (two cores, the
      // whole suite beside it) to answer one call first: 4 s was not, and it expired at start.
      server.body = bundleOf('version: 1\nrules:\n  - allow: mcp__echo__get_status\n', {
        notAfter: new Date(Date.now() + 10_000),
      });
      const proc = startProxyProcess(['--name', 'echo', '--', ...ECHO_COMMAND], {
        cwd: dir,
        env: { ...env, ECHO_MCP_DIR: dir, TOOLGATE_LOG: '' },
      });
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(proc.transport);
      const before = await client.callTool({ name: 'get_status', arguments: {} });
      expect(before.isError).not.toBe(true);
      expect(await proc.exit).toBe(1);
      expect(proc.stderr()).toMatch(
        /policy bundle .*fleet@1 expired at .*: stopping, nothing more is decided/,
      );
    },
    45_000,
  );

  it('bundle: in a file that is not managed refuses the policy', async () => {
    fs.writeFileSync(
      path.join(dir, 'p.yaml'),
      `version: 1\nbundle: { url: "http://127.0.0.1:9/b", publicKey: "k" }\n`,
    );
    const r = await runMain(
      ['check', '--policy', 'p.yaml', '--tool', 'Read', '--input', '{"file_path":"/x"}'],
      {
        cwd: dir,
        env: { HOME: dir },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bundle: is honoured only in a managed policy file/);
  });
});
