import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/io.js';
import { POLICY_OPTIONS } from '../../src/cli/policy-args.js';

/** parseCliArgs is node:util's parseArgs (skipped for an empty list), with usage errors. */
describe('parseCliArgs', () => {
  const config = (args: string[], options: Parameters<typeof parseCliArgs>[1]) => ({
    args,
    options,
    allowPositionals: true,
    strict: true,
  });

  it('gives what parseArgs gives, for an empty list too, defaults included', () => {
    const withDefault = { ...POLICY_OPTIONS, level: { type: 'string', default: 'x' } } as const;
    for (const options of [POLICY_OPTIONS, withDefault])
      for (const args of [[], ['--mode', 'plan', 'rest'], ['--policy', 'a', '--policy', 'b']])
        expect(parseCliArgs(args, options)).toEqual(parseArgs(config(args, options)));
    expect(parseCliArgs([], {})).toEqual(parseArgs(config([], {})));
    expect(parseCliArgs([], withDefault).values).toEqual({ level: 'x' });
  });

  it('turns a bad option into a usage error', () => {
    expect(() => parseCliArgs(['--nope'], POLICY_OPTIONS)).toThrow(UsageError);
    expect(() => parseCliArgs(['--mode'], POLICY_OPTIONS)).toThrow(/--mode/);
  });
});
