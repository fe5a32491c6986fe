import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

let server: http.Server;
let base: string;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><style>p{}</style><script>var x=1</script></head><body><h1>Title</h1><p>Hello &amp; <a href="/next">welcome</a></p></body></html>',
      );
    } else if (req.url === '/same') {
      res.writeHead(302, { location: '/page' });
      res.end();
    } else if (req.url === '/other') {
      res.writeHead(301, { location: `http://localhost:${port}/page` });
      res.end();
    } else if (req.url === '/json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"a":1}');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-fetch-');
  hits.length = 0;
});
afterEach(() => ws.cleanup());

const ALLOW = 'rules:\n  - allow: ["WebFetch(domain:127.0.0.1)"]\n';

describe('WebFetch on a real HTTP server on loopback', () => {
  it('fetches a page the domain rules allow, as text without scripts or styles', async () => {
    const out = await call(
      ws.root,
      'WebFetch',
      { url: `${base}/page`, prompt: 'the title' },
      { policy: ALLOW },
    );
    expect(out.result.is_error).toBeUndefined();
    expect(out.text).toContain('Title');
    expect(out.text).toContain('Hello & welcome (/next)');
    expect(out.text).not.toContain('var x');
    expect(out.text).toContain('Prompt: the title');
    const json = await call(ws.root, 'WebFetch', { url: `${base}/json` }, { policy: ALLOW });
    expect(json.text).toContain('{"a":1}');
  });

  it('without an allow rule the call asks, and headless it is denied before any request is made', async () => {
    const out = await call(ws.root, 'WebFetch', { url: `${base}/page` });
    expect(out.failure?.kind).toBe('ask-refused');
    expect(hits).toEqual([]);
  });

  it('a deny rule for the domain wins', async () => {
    const out = await call(
      ws.root,
      'WebFetch',
      { url: `${base}/page` },
      { policy: `${ALLOW}  - deny: ["WebFetch(domain:127.0.0.1)"]\n` },
    );
    expect(out.failure?.kind).toBe('denied');
    expect(hits).toEqual([]);
  });

  it('follows a redirect on the same host; reports one to another host instead of following it', async () => {
    const same = await call(ws.root, 'WebFetch', { url: `${base}/same` }, { policy: ALLOW });
    expect(same.text).toContain('Title');
    hits.length = 0;
    const other = await call(ws.root, 'WebFetch', { url: `${base}/other` }, { policy: ALLOW });
    expect(other.text).toContain('REDIRECT DETECTED');
    expect(other.text).toContain(`http://localhost:${port}/page`);
    expect(hits).toEqual(['/other']);
  });

  it('an HTTP error status is an error result; non-http URLs are refused by validation', async () => {
    const missing = await call(ws.root, 'WebFetch', { url: `${base}/nope` }, { policy: ALLOW });
    expect(missing.result.is_error).toBe(true);
    expect(missing.text).toContain('HTTP 404');
    const file = await call(ws.root, 'WebFetch', { url: 'file:///etc/passwd' }, { policy: ALLOW });
    expect(file.result.is_error).toBe(true);
  });
});
