import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without types
import { lazyExports } from '../../scripts/lazy-exports.mjs';

/** The hook bundle's stand-ins for src/bash: functions only, or the build fails. */
describe('lazyExports', () => {
  it('stands a function in for each exported function', () => {
    const code = lazyExports(['classifyBash', 'isDynamic'], { classifyBash: () => 1, isDynamic: () => 2 });
    expect(code).toContain('export const classifyBash = (...args) => load().classifyBash(...args);');
    expect(code).toContain('export const isDynamic = (...args) => load().isDynamic(...args);');
  });

  it('refuses a constant or a class, which a function would not mean', () => {
    expect(() => lazyExports(['f', 'LIMIT'], { f: () => 1, LIMIT: 64 })).toThrow(
      /exports LIMIT, which is not a function/,
    );
    expect(() => lazyExports(['Parser'], { Parser: class {} })).toThrow(
      /exports Parser, which is not a function/,
    );
    expect(() => lazyExports(['gone'], {})).toThrow(/gone/);
  });
});
