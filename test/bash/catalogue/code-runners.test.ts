import { describe, expect, it } from 'vitest';
import { CODE_RUNNER_PROBES, INSTALLER_PROBES } from '../../../src/bash/catalogue/code-runners.js';
import { classifyBash } from '../../../src/bash/classify.js';

/**
 * The lines the policy's lint tries against wildcard allow rules claim to run code the line does
 * not show (or install packages): the classifier must agree, or lint would call a rule that
 * grants code execution what it is not.
 */
describe('code-runner probes', () => {
  for (const p of CODE_RUNNER_PROBES)
    it(`runs code: ${p.line}`, () => {
      const f = classifyBash(p.line);
      expect({ readOnly: f.readOnly, destructive: f.destructive }).toEqual({
        readOnly: false,
        destructive: true,
      });
    });
  for (const line of INSTALLER_PROBES)
    it(`installs: ${line}`, () => expect(classifyBash(line).readOnly).toBe(false));
  it('lists each line once', () => {
    const lines = CODE_RUNNER_PROBES.map((p) => p.line);
    expect(lines.length).toBe(new Set(lines).size);
  });
});
