import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * The sandbox profile's deny lists are the policy's, shared by every decision in a workspace
 * rather than copied into each (the copy made an MCP call beside 10,000 rules 2.9x slower).
 * Shared means one decision's consumer must not be able to change the next one's limits.
 */
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-profile-shared-'));
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

const policy = await policyFromText(
  [
    'version: 1',
    'rules:',
    '  - allow: "mcp__srv__get_status"',
    '  - deny: "Read(**/secret-a/**)"',
    '  - deny: "Edit(./locked/**)"',
    'sandbox:',
    '  read:',
    '    deny: ["~/.aws"]',
    '',
  ].join('\n'),
  { root: ws },
);
const call = { tool: 'mcp__srv__get_status', input: {}, cwd: ws };

describe('sandbox profile deny lists', () => {
  it('are the same frozen lists in every decision of one workspace', () => {
    const a = decide(call, policy).sandbox!;
    const b = decide(call, policy).sandbox!;
    expect(a.readDeny).toBe(b.readDeny);
    expect(a.writeDeny).toBe(b.writeDeny);
    expect(Object.isFrozen(a.readDeny) && Object.isFrozen(a.writeDeny)).toBe(true);
    expect(() => (a.readDeny as string[]).push('/nothing')).toThrow(TypeError);
    expect(decide(call, policy).sandbox!.readDeny).not.toContain('/nothing');
  });

  it('still hold every deny: Read deny rules and sandbox.read.deny unreadable, Edit deny unwritable', () => {
    const { readDeny, writeDeny } = decide(call, policy).sandbox!;
    expect(readDeny.some((g) => g.includes('secret-a'))).toBe(true);
    expect(readDeny.some((g) => g.endsWith('.aws'))).toBe(true);
    expect(writeDeny.some((g) => g.includes(`${ws}/locked`))).toBe(true);
    // what cannot be read cannot be written either
    for (const g of readDeny) expect(writeDeny).toContain(g);
  });
});
