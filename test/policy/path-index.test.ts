import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPolicyFiles } from '../../src/policy/layers.js';

/**
 * pathCandidates narrows a long list of path rules by a literal segment each rule needs: it
 * must never leave out a rule that matches, and must keep the rules in list order.
 */
const policy = loadPolicyFiles([{ file: 'builtin:default', layer: 'builtin' }]);
const anchors = { cwd: '/w/project', home: '/home/u', policyRoot: '/w/project' };
const SEGMENTS = [
  'w',
  'project',
  'home',
  'u',
  'src',
  '.ssh',
  '.aws',
  '.kube',
  'config',
  'config.json',
  '.docker',
  '.netrc',
  '.npmrc',
  '.env',
  '.env.local',
  '.env.example',
  'a.pem',
  'id_rsa',
  'id_rsa.pub',
  'gcloud',
  '.config',
  '..',
  '.',
  '',
];

describe('path rule index', () => {
  it('the default policy is long enough to be indexed', () => {
    expect(policy.pathRules.read.deny.length).toBeGreaterThanOrEqual(16);
  });

  it('keeps every rule that matches, in list order (property)', () => {
    const rules = policy.pathRules.read.deny;
    const pathOf = fc
      .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 6 })
      .map((s) => `/${s.join('/')}`);
    fc.assert(
      fc.property(fc.array(pathOf, { minLength: 1, maxLength: 2 }), (paths) => {
        const candidates = policy.pathCandidates('read', 'deny', paths);
        for (const r of rules) {
          if (paths.some((p) => r.path!(anchors).matches(p))) expect(candidates).toContain(r);
        }
        const order = candidates.map((r) => rules.indexOf(r));
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(new Set(order).size).toBe(order.length);
      }),
      { numRuns: 3000 },
    );
  });
});
