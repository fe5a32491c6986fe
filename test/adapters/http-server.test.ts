import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDecisionServer } from '../../src/adapters/http-server.js';
import { DecisionLog } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { policyFromText } from '../../src/policy/policy.js';

/** `toolgate serve`'s server on real loopback HTTP: hook and decide routes, limits, a shared log. */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-serve-'));
const logPath = path.join(work, 'log.jsonl');
let url = '';
let server: ReturnType<typeof createDecisionServer>;
let log: DecisionLog;

beforeAll(async () => {
  const policy = await policyFromText(
    'version: 1\nrules:\n  - deny: "Bash(git push *)"\n    reason: no pushing\n',
  );
  log = await DecisionLog.open(logPath);
  server = createDecisionServer({ policy: () => policy, log, maxBodyBytes: 4096 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await log.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const post = (route: string, body: string) =>
  fetch(`${url}${route}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
const hook = (tool: string, input: unknown) =>
  JSON.stringify({
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    cwd: work,
    permission_mode: 'default',
  });

describe('decision server', () => {
  it('answers Claude Code http hooks', async () => {
    const res = await post('/hook', hook('Bash', { command: 'git push origin main' }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(body.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(body.hookSpecificOutput.permissionDecisionReason).toMatch(/no pushing/);
  });

  it('answers a failed hook request with a deny, since http hooks cannot block by status', async () => {
    for (const bad of ['nope', '{}', hook('Bash', 'x')]) {
      const res = await post('/hook', bad);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { hookSpecificOutput: { permissionDecision: string } };
      expect(body.hookSpecificOutput.permissionDecision).toBe('deny');
    }
  });

  it('decides ToolRequests for agents in any language', async () => {
    const res = await post(
      '/decide',
      JSON.stringify({ tool: 'Read', input: { file_path: path.join(work, 'a') }, cwd: work }),
    );
    expect(res.status).toBe(200);
    const decision = (await res.json()) as { behavior: string; policyDigest: string };
    expect(decision.behavior).toBe('allow');
    expect(decision.policyDigest).toMatch(/^[0-9a-f]{64}$/);
    const bad = await post('/decide', JSON.stringify({ tool: 'Read', input: {} }));
    expect(bad.status).toBe(400);
  });

  it('refuses bodies over the limit', async () => {
    const res = await post(
      '/decide',
      JSON.stringify({ tool: 'Bash', input: { command: 'x'.repeat(10_000) }, cwd: work }),
    );
    expect(res.status).toBe(413);
    const hookRes = await post('/hook', hook('Bash', { command: 'x'.repeat(10_000) }));
    expect(
      ((await hookRes.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
        .permissionDecision,
    ).toBe('deny');
  });

  it('handles concurrent requests and keeps the shared log intact', async () => {
    const before = fs.existsSync(logPath)
      ? fs.readFileSync(logPath, 'utf8').trim().split('\n').filter(Boolean).length
      : 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(
          '/decide',
          JSON.stringify({ tool: 'Bash', input: { command: i % 2 ? 'ls' : 'git push x' }, cwd: work }),
        ).then((r) => r.json()),
      ),
    );
    expect(results.filter((r) => (r as { behavior: string }).behavior === 'deny')).toHaveLength(25);
    const lines = fs.readFileSync(logPath, 'utf8').trim().split('\n');
    expect(lines.length - before).toBe(50);
    const verified = await verifyLog(logPath);
    expect(verified.ok).toBe(true);
  });

  it('reports health and 404s unknown routes', async () => {
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });
});
