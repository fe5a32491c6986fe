import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessagesApi, startMessagesApi } from '../../src/demo/scripted-model.js';
import {
  anthropicClassifier,
  decideWithClassifier,
  offlineClassifier,
  parseVerdict,
} from '../../src/policy/auto.js';
import { policyFromText } from '../../src/policy/policy.js';

/** auto mode: asks go to a classifier; the Anthropic one is tested against a loopback Messages API. */
let api: MessagesApi;
let answer = '{"decision": "allow", "reason": "ordinary project work"}';
let status: 'ok' | 'broken' = 'ok';

beforeAll(async () => {
  api = await startMessagesApi(() => {
    if (status === 'broken')
      return { content: [{ type: 'text', text: 'I would rather not say' }], stop_reason: 'end_turn' };
    return { content: [{ type: 'text', text: answer }], stop_reason: 'end_turn' };
  });
});
afterAll(() => api.close());

const cwd = '/tmp';
const bash = (command: string) => ({ tool: 'Bash', input: { command }, cwd, mode: 'auto' as const });

describe('auto mode', () => {
  it('leaves decisions that never asked alone', async () => {
    const policy = await policyFromText('version: 1\nrules:\n  - deny: "Bash(rm *)"\n');
    const classifier = { name: 'spy', classify: async () => ({ behavior: 'allow' as const, reason: 'spy' }) };
    expect((await decideWithClassifier(bash('rm -rf x'), policy, { classifier })).behavior).toBe('deny');
    expect((await decideWithClassifier(bash('ls'), policy, { classifier })).decidedBy).toBe('default');
  });

  it('offline: allows what is not destructive, denies what is, and denies guards and ask rules', async () => {
    const policy = await policyFromText('version: 1\nrules:\n  - ask: "Bash(git push *)"\n');
    const make = await decideWithClassifier(bash('mkdir -p build/out'), policy, {
      classifier: offlineClassifier,
    });
    expect(make.behavior).toBe('allow');
    expect(make.decidedBy).toBe('classifier');
    expect(make.sandbox).toBeDefined();
    expect(
      (await decideWithClassifier(bash('rm -rf build'), policy, { classifier: offlineClassifier })).behavior,
    ).toBe('deny');
    expect(
      (await decideWithClassifier(bash('git push origin main'), policy, { classifier: offlineClassifier }))
        .behavior,
    ).toBe('deny');
    expect(
      (await decideWithClassifier(bash('rm -rf /'), policy, { classifier: offlineClassifier })).behavior,
    ).toBe('deny');
    expect(
      (await decideWithClassifier(bash('$CMD x'), policy, { classifier: offlineClassifier })).behavior,
    ).toBe('deny');
  });

  it('anthropic: asks the model through the real SDK and follows its answer', async () => {
    const policy = await policyFromText('version: 1\n');
    const classifier = anthropicClassifier({
      apiKey: 'sk-loopback',
      baseURL: api.url,
      model: 'claude-test',
      prompt: 'Judge this.',
    });
    answer = '{"decision": "allow", "reason": "ordinary project work"}';
    const allowed = await decideWithClassifier(bash('mkdir x'), policy, { classifier });
    expect(allowed.behavior).toBe('allow');
    expect(allowed.reason).toMatch(/ordinary project work/);
    const request = api.requests.at(-1)!;
    expect(request.model).toBe('claude-test');
    expect(request.system).toBe('Judge this.');
    expect(JSON.stringify(request.messages)).toContain('mkdir x');
    answer = 'Thinking... {"decision": "block", "reason": "deletes data"}';
    const blocked = await decideWithClassifier(bash('rm -rf build'), policy, { classifier });
    expect(blocked.behavior).toBe('deny');
    expect(blocked.reason).toMatch(/deletes data/);
  });

  it('anthropic: an unclear answer or an unreachable API is a deny', async () => {
    const policy = await policyFromText('version: 1\n');
    status = 'broken';
    const unclear = await decideWithClassifier(bash('mkdir y'), policy, {
      classifier: anthropicClassifier({ apiKey: 'k', baseURL: api.url }),
    });
    expect(unclear.behavior).toBe('deny');
    status = 'ok';
    const down = await decideWithClassifier(bash('mkdir y'), policy, {
      classifier: anthropicClassifier({
        client: new Anthropic({ apiKey: 'k', baseURL: 'http://127.0.0.1:1', maxRetries: 0 }),
      }),
    });
    expect(down.behavior).toBe('deny');
    expect(down.reason).toMatch(/could not be asked/);
  });

  it('parses verdicts strictly', () => {
    expect(parseVerdict('{"decision":"allow","reason":"r"}').behavior).toBe('allow');
    expect(parseVerdict('{"decision":"maybe"}').behavior).toBe('deny');
    expect(parseVerdict('').behavior).toBe('deny');
    expect(parseVerdict('allow').behavior).toBe('deny');
  });
});
