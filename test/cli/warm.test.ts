import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ACK, parseWarmAnswer, parseWarmRequest, privateToUser, warmSocketPath } from '../../src/cli/warm.js';
import { askWarm } from '../../src/cli/warm-client.js';

/**
 * The hook process's side of `--warm` (the warm process itself runs in the e2e tests): it takes
 * an answer only when it is one, from a socket that is the user's own, in time.
 */
const dirs: string[] = [];
const servers: net.Server[] = [];
const connections: net.Socket[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) c.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function privateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-warm-'));
  dirs.push(dir);
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** A stand-in warm process that answers every call with `reply` (raw text). */
async function fakeWarm(dir: string, reply: (request: string) => string | undefined): Promise<string> {
  const socket = path.join(dir, 'w.sock');
  const server = net.createServer({ allowHalfOpen: true }, (c) => {
    connections.push(c);
    let text = '';
    c.on('data', (d) => {
      text += d;
    });
    c.on('end', () => {
      const r = reply(text);
      if (r !== undefined) c.end(r);
    });
  });
  servers.push(server);
  const old = process.umask(0o077);
  try {
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  } finally {
    process.umask(old);
  }
  return socket;
}

const request = { v: 2 as const, argv: ['--warm'], cwd: '/', stdin: '{}' };
const fast = { ackMs: 300, answerMs: 300 };

describe('warm answers', () => {
  it('are taken only when well formed, with exit 0 or 2 (any other exit would let Claude Code proceed)', () => {
    expect(parseWarmAnswer('{"v":2,"code":0,"stdout":"x","stderr":""}')).toEqual({
      v: 2,
      code: 0,
      stdout: 'x',
      stderr: '',
    });
    expect(parseWarmAnswer('{"v":2,"code":2,"stdout":"","stderr":"why"}')).toMatchObject({ code: 2 });
    expect(parseWarmAnswer('{"v":2,"fallback":"busy"}')).toEqual({ v: 2, fallback: 'busy' });
    for (const bad of [
      '{"v":2,"code":1,"stdout":"","stderr":""}',
      '{"v":2,"code":"0","stdout":"","stderr":""}',
      '{"v":2,"code":0,"stdout":""}',
      '{"v":1,"code":0,"stdout":"","stderr":""}',
      '[2,0]',
      'null',
      '',
      '{"v":2,"code":0,"stdout":"x","stderr":""',
    ])
      expect(parseWarmAnswer(bad)).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const a = parseWarmAnswer(JSON.stringify(value));
        if (a !== undefined && 'code' in a) expect([0, 2]).toContain(a.code);
      }),
    );
  });

  it('requests are read the same way', () => {
    expect(parseWarmRequest(JSON.stringify(request))).toEqual(request);
    expect(parseWarmRequest(JSON.stringify({ ...request, argv: [1] }))).toBeUndefined();
    expect(parseWarmRequest(JSON.stringify({ ...request, v: 1 }))).toBeUndefined();
    expect(parseWarmRequest('nonsense')).toBeUndefined();
    // the caller's directory variables may come along, and nothing else of its environment
    const withPwd = { ...request, vars: { PWD: '/p/src', OLDPWD: '/p' } };
    expect(parseWarmRequest(JSON.stringify(withPwd))).toEqual(withPwd);
    expect(parseWarmRequest(JSON.stringify({ ...request, vars: { HOME: '/h' } }))).toBeUndefined();
    expect(parseWarmRequest(JSON.stringify({ ...request, vars: { PWD: 1 } }))).toBeUndefined();
    expect(parseWarmRequest(JSON.stringify({ ...request, vars: ['PWD'] }))).toBeUndefined();
  });
});

describe('the warm socket', () => {
  it('is one per environment, whatever the order of its variables, and per build', () => {
    const a = warmSocketPath('/c', 'build-1', { HOME: '/h', X: '1', Y: '2' });
    expect(warmSocketPath('/c', 'build-1', { Y: '2', HOME: '/h', X: '1' })).toBe(a);
    expect(warmSocketPath('/c', 'build-1', { HOME: '/h', X: '1', Y: '3' })).not.toBe(a);
    expect(warmSocketPath('/c', 'build-2', { HOME: '/h', X: '1', Y: '2' })).not.toBe(a);
    expect(path.dirname(a!)).toBe(path.join('/c', 'warm'));
    expect(warmSocketPath(`/${'c'.repeat(120)}`, 'build-1', {})).toBeUndefined();
  });

  it('is one per project, not one per directory the agent has moved to (PWD, OLDPWD)', () => {
    const a = warmSocketPath('/c', 'build-1', { HOME: '/h', PWD: '/p' });
    expect(warmSocketPath('/c', 'build-1', { HOME: '/h', PWD: '/p/src', OLDPWD: '/p' })).toBe(a);
    expect(warmSocketPath('/c', 'build-1', { HOME: '/h' })).toBe(a);
  });

  it('is used only in a directory of the user that no one else may enter', () => {
    const dir = privateDir();
    expect(privateToUser(dir, 'directory')).toBe(true);
    fs.chmodSync(dir, 0o755);
    expect(privateToUser(dir, 'directory')).toBe(false);
    fs.chmodSync(dir, 0o700);
    const link = `${dir}-link`;
    fs.symlinkSync(dir, link);
    dirs.push(link);
    expect(privateToUser(link, 'directory')).toBe(false);
    expect(privateToUser(path.join(dir, 'missing'), 'socket')).toBe(false);
  });
});

describe('askWarm', () => {
  it('takes the answer of a warm process that acknowledges and answers', async () => {
    const socket = await fakeWarm(privateDir(), (text) => {
      expect(JSON.parse(text)).toEqual(request);
      return `${ACK}{"v":2,"code":0,"stdout":"ok","stderr":""}\n`;
    });
    expect(await askWarm(socket, request, fast)).toEqual({ v: 2, code: 0, stdout: 'ok', stderr: '' });
  });

  it('gives up (the caller decides by itself) on no acknowledgement, no answer, a bad answer or exit 1', async () => {
    for (const reply of [
      () => undefined, // never answers
      () => '{"v":2,"code":0,"stdout":"ok","stderr":""}\n', // no acknowledgement first
      () => `${ACK}not json\n`,
      () => `${ACK}{"v":2,"code":1,"stdout":"","stderr":""}\n`,
    ]) {
      const socket = await fakeWarm(privateDir(), reply);
      expect(await askWarm(socket, request, fast)).toBeUndefined();
    }
  });

  it('does not talk to a socket in a directory others may enter, nor to a missing one', async () => {
    const dir = privateDir();
    const socket = await fakeWarm(dir, () => `${ACK}{"v":2,"code":0,"stdout":"allow","stderr":""}\n`);
    fs.chmodSync(dir, 0o755);
    expect(await askWarm(socket, request, fast)).toBeUndefined();
    expect(await askWarm(path.join(privateDir(), 'none.sock'), request, fast)).toBeUndefined();
  });
});
