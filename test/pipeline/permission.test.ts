import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../src/pipeline/build-tool.js';
import { headlessCanUseTool, terminalCanUseTool } from '../../src/pipeline/can-use-tool.js';
import type { HookConfig } from '../../src/pipeline/hooks.js';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import type { AnyTool, CanUseTool } from '../../src/pipeline/tool.js';
import { refuseAll, testContext, use, type Workspace, workspace } from './fixture.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

const ran: unknown[] = [];
const Note = buildTool({
  name: 'Note',
  inputSchema: z.strictObject({ text: z.string() }),
  isConcurrencySafe: (input) => input.text !== 'unsafe',
  prompt: () => 'note',
  description: () => 'note',
  async call(input) {
    ran.push(input);
    return { data: input.text };
  },
}) as AnyTool;

const hookSays = (
  permissionDecision: 'allow' | 'ask',
  updatedInput?: Record<string, unknown>,
): HookConfig => ({
  PreToolUse: [
    {
      hooks: [
        {
          type: 'function',
          fn: () => ({
            hookSpecificOutput: { permissionDecision, ...(updatedInput ? { updatedInput } : {}) },
          }),
        },
      ],
    },
  ],
});

describe('permission order beyond the basics', () => {
  it('auto mode: the classifier approves a default ask, runs under a profile', async () => {
    ran.length = 0;
    const ctx = await testContext([Note], ws.root, { mode: 'auto' });
    const out = await runToolUse(use('Note', { text: 'x' }), ctx, refuseAll);
    expect(out.decision).toMatchObject({ behavior: 'allow', decidedBy: 'classifier' });
    expect(out.decision?.sandbox).toBeDefined();
    expect(ran).toHaveLength(1);
  });

  it('auto mode: a hook ask cannot be approved by the classifier; it goes to canUseTool', async () => {
    let asked = 0;
    const counting: CanUseTool = async () => {
      asked++;
      return { behavior: 'deny', message: 'no' };
    };
    const ctx = await testContext([Note], ws.root, { mode: 'auto', toolOptions: { hooks: hookSays('ask') } });
    const out = await runToolUse(use('Note', { text: 'x' }), ctx, counting);
    expect(asked).toBe(1);
    expect(out.failure?.kind).toBe('ask-refused');
  });

  it('an input edited at the prompt is decided again: a deny for it still denies', async () => {
    const edit: CanUseTool = async () => ({ behavior: 'allow', updatedInput: { text: 'forbidden' } });
    const ctx = await testContext([Note], ws.root, {
      policy: 'rules:\n  - deny: ["Note(text:forbidden)"]\n',
    });
    ran.length = 0;
    const out = await runToolUse(use('Note', { text: 'fine' }), ctx, edit);
    expect(out.failure?.kind).toBe('denied');
    expect(ran).toHaveLength(0);
  });

  it('a call scheduled beside others whose input a hook turns unsafe is refused, not run', async () => {
    ran.length = 0;
    const ctx = await testContext([Note], ws.root, {
      policy: 'rules:\n  - allow: [Note]\n',
      toolOptions: { hooks: hookSays('allow', { text: 'unsafe' }) },
    });
    const out = await runToolUse(use('Note', { text: 'safe' }), ctx, refuseAll, { concurrent: true });
    expect(out.failure?.kind).toBe('unsafe-rewrite');
    expect(ran).toHaveLength(0);
    const alone = await runToolUse(use('Note', { text: 'safe' }), ctx, refuseAll);
    expect(alone.failure).toBeUndefined();
    expect(ran).toEqual([{ text: 'unsafe' }]);
  });
});

describe('canUseTool implementations', () => {
  it('headless: a structured denial naming the reason', async () => {
    const ctx = await testContext([Note], ws.root);
    const out = await runToolUse(use('Note', { text: 'x' }), ctx, headlessCanUseTool);
    expect(out.failure?.kind).toBe('ask-refused');
    expect(out.result.content).toContain('headless');
  });

  it('terminal: shows the rendered call and the reason; y approves, anything else refuses', async () => {
    const ctx = await testContext([Note], ws.root);
    for (const [answer, approved] of [
      ['y\n', true],
      ['n\n', false],
      ['\n', false],
    ] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (d) => {
        shown += d;
      });
      const prompt = terminalCanUseTool({ input, output });
      const running = runToolUse(use('Note', { text: 'hello' }), ctx, prompt);
      // Buffered until the prompt reads it.
      input.write(answer);
      const out = await running;
      expect(shown).toContain('Note(text: "hello")');
      expect(shown).toContain('Allow this call?');
      expect(out.failure === undefined).toBe(approved);
    }
  });
});
