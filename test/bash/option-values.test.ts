import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';

/**
 * Options whose effect depends on their value, or on having none: each value's effect was tried
 * in a jail (bwrap, no capabilities, no network) with GNU tar 1.34 and gawk 5.2.1.
 */
describe('an option whose value decides its effect', () => {
  it('gawk -d and -o given no file write awkvars.out and awkprof.out', () => {
    for (const [line, file] of [
      ["awk -d '{print}' f", 'awkvars.out'],
      ["gawk --dump-variables '{print}' f", 'awkvars.out'],
      ["awk -o '{print}' f", 'awkprof.out'],
      ["gawk --pretty-print '{print}' f", 'awkprof.out'],
      ["awk -dvars.txt '{print}' f", 'vars.txt'],
    ] as const) {
      const f = classifyBash(line);
      expect({ line, readOnly: f.readOnly, writes: f.writes }).toEqual({
        line,
        readOnly: false,
        writes: [file],
      });
    }
  });

  it('tar --checkpoint-action=exec= runs its command, even without --checkpoint', () => {
    expect(classifyBash("tar -tf a.tar --checkpoint-action=exec='sh x.sh'").destructive).toBe(true);
  });

  it('tar --checkpoint-action=wait= keeps tar waiting for a signal: never run beside others', () => {
    const f = classifyBash('tar -tf a.tar --checkpoint=1 --checkpoint-action=wait=SIGUSR1');
    expect({ readOnly: f.readOnly, concurrencySafe: f.concurrencySafe }).toEqual({
      readOnly: true,
      concurrencySafe: false,
    });
  });

  it('tar --checkpoint-action that only prints or sleeps stays read-only', () => {
    for (const a of ['dot', '.', 'bell', 'echo', "'echo=at %u'", 'sleep=1', 'totals', "'ttyout=%u'"])
      expect(classifyBash(`tar -tf a.tar --checkpoint-action=${a}`).readOnly, a).toBe(true);
  });

  it('a tar --checkpoint-action tar does not know is not read-only (fail closed)', () => {
    expect(classifyBash('tar -tf a.tar --checkpoint-action=v.txt').readOnly).toBe(false);
  });
});
