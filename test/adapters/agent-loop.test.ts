import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/adapters/agent-loop.js';
import {
  type MessagesApi,
  type Reply,
  startMessagesApi,
  toolResults,
} from '../../src/demo/scripted-model.js';
import { policyFromText } from '../../src/policy/policy.js';

/** runAgent with the real @anthropic-ai/sdk against a loopback server speaking the Messages API. */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-agent-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
beforeAll(() => {
  fs.writeFileSync(path.join(work, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(work, 'b.txt'), 'beta TODO\n');
  fs.writeFileSync(path.join(work, 'keep.txt'), 'keep\n');
});

async function withApi(
  script: (body: unknown, i: number) => Reply,
  run: (api: MessagesApi, client: Anthropic) => Promise<void>,
) {
  const api = await startMessagesApi(script);
  try {
    await run(api, new Anthropic({ apiKey: 'sk-loopback', baseURL: api.url, maxRetries: 0 }));
  } finally {
    await api.close();
  }
}

describe('runAgent', () => {
  it('runs tool_use blocks through the pipeline and sends paired tool_results back until end_turn', async () => {
    const policy = await policyFromText(
      'version: 1\nrules:\n  - deny: "Bash(rm *)"\n    reason: nothing is deleted here\n',
    );
    await withApi(
      (_body, i) =>
        i === 0
          ? {
              content: [
                { type: 'text', text: 'Looking around.' },
                {
                  type: 'tool_use',
                  id: 'toolu_a',
                  name: 'Read',
                  input: { file_path: path.join(work, 'a.txt') },
                },
                { type: 'tool_use', id: 'toolu_b', name: 'Grep', input: { pattern: 'TODO', path: work } },
                {
                  type: 'tool_use',
                  id: 'toolu_c',
                  name: 'Bash',
                  input: { command: 'rm keep.txt', description: 'delete' },
                },
              ],
              stop_reason: 'tool_use',
            }
          : { content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' },
      async (api, client) => {
        const run = await runAgent({ client, model: 'claude-test', policy, cwd: work, prompt: 'tidy up' });
        expect(run.stopReason).toBe('end_turn');
        expect(run.turns).toBe(2);
        expect(fs.existsSync(path.join(work, 'keep.txt'))).toBe(true);
        const sent = toolResults(api.requests[1]!);
        expect([...sent.keys()]).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
        expect(sent.get('toolu_a')!.is_error).toBe(false);
        expect(sent.get('toolu_a')!.text).toContain('alpha');
        expect(sent.get('toolu_b')!.text).toContain('b.txt');
        expect(sent.get('toolu_c')!.is_error).toBe(true);
        expect(sent.get('toolu_c')!.text).toContain('nothing is deleted here');
        // The second request carries the whole conversation: user, assistant (with tool_use), user (results).
        expect(api.requests[1]!.messages!.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
        expect(api.requests[0]!.tools!.map((t) => t.name)).toEqual(
          expect.arrayContaining(['Read', 'Bash', 'Grep']),
        );
      },
    );
  });

  it('starts a tool while the model is still streaming later blocks', async () => {
    const policy = await policyFromText('version: 1\n');
    const events: string[] = [];
    await withApi(
      (_body, i) =>
        i === 0
          ? {
              content: [
                {
                  type: 'tool_use',
                  id: 'toolu_1',
                  name: 'Read',
                  input: { file_path: path.join(work, 'a.txt') },
                },
                { type: 'text', text: 'and some more text after the first tool call' },
                {
                  type: 'tool_use',
                  id: 'toolu_2',
                  name: 'Read',
                  input: { file_path: path.join(work, 'b.txt') },
                },
              ],
              stop_reason: 'tool_use',
              pauseBeforeBlockMs: 150,
              onBlockSent: (index) => events.push(`sent ${index}`),
            }
          : { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' },
      async (_api, client) => {
        await runAgent({
          client,
          model: 'claude-test',
          policy,
          cwd: work,
          prompt: 'read',
          context: { options: { onEvent: (e) => events.push(`${e.event} ${e.id}`) } },
        });
      },
    );
    expect(events.indexOf('start toolu_1')).toBeGreaterThan(-1);
    expect(events.indexOf('start toolu_1')).toBeLessThan(events.indexOf('sent 2'));
  });

  it('stops at the turn limit', async () => {
    const policy = await policyFromText('version: 1\n');
    let n = 0;
    await withApi(
      () => ({
        content: [
          {
            type: 'tool_use',
            id: `toolu_${++n}`,
            name: 'Read',
            input: { file_path: path.join(work, 'a.txt') },
          },
        ],
        stop_reason: 'tool_use',
      }),
      async (api, client) => {
        const run = await runAgent({
          client,
          model: 'claude-test',
          policy,
          cwd: work,
          prompt: 'loop',
          maxTurns: 3,
        });
        expect(run.stopReason).toBe('max_turns');
        expect(run.turns).toBe(3);
        expect(api.requests).toHaveLength(3);
        expect(run.outcomes).toHaveLength(3);
      },
    );
  });
});
