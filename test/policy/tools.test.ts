import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkInput, type InputShape, inputIssues, inputValid, TOOLS } from '../../src/policy/tools.js';

/**
 * The tool input check is hand-written so that a hook process need not load zod; it must say
 * exactly what the equivalent zod schema says (the words the model reads on a deny), and
 * accept exactly what it accepts.
 */
function zodOf(shape: InputShape): z.ZodType {
  const fields: Record<string, z.ZodType> = {};
  for (const [field, type] of Object.entries(shape)) {
    const base = type.replace('?', '');
    const schema =
      base === 'string'
        ? z.string()
        : base === 'path'
          ? z.string().min(1, 'must not be empty')
          : base === 'number'
            ? z.number()
            : base === 'nonnegative'
              ? z.number().nonnegative()
              : base === 'boolean'
                ? z.boolean()
                : z.array(z.unknown());
    fields[field] = type.endsWith('?') ? schema.optional() : schema;
  }
  return z.looseObject(fields);
}

/** zod's issues, or undefined where zod itself throws (a length that cannot be coerced). */
function zodIssues(shape: InputShape, input: unknown): string[] | undefined {
  let parsed: ReturnType<ReturnType<typeof zodOf>['safeParse']>;
  try {
    parsed = zodOf(shape).safeParse(input);
  } catch {
    return undefined;
  }
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'input'}: ${i.message}`);
}

const value = fc.oneof(
  fc.string(),
  fc.constant(''),
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, -1),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
  fc.bigInt(),
  fc.date(),
  fc.anything(),
  fc.record({ length: fc.oneof(fc.jsonValue(), fc.double()) }),
);

describe('tool input checks', () => {
  const shapes = Object.entries(TOOLS).filter(([, info]) => info.input !== undefined);

  it('refuses, without crashing, a path whose length cannot be compared (seed 1562270247 found it)', () => {
    const hostile = { notebook_path: { length: [{ toString: false }] } };
    expect(inputIssues({ notebook_path: 'path' }, hostile)).toEqual([
      'notebook_path: Invalid input: expected string, received object',
      'notebook_path: must not be empty',
    ]);
    expect(checkInput('NotebookEdit', { ...hostile, new_source: 'x' })).toMatch(/must not be empty/);
  });

  it('say what zod says, for every tool, about any input', () => {
    for (const [tool, info] of shapes) {
      const shape = info.input!;
      const fields = Object.keys(shape);
      const input = fc.oneof(
        fc.record(Object.fromEntries(fields.map((f) => [f, value])), { requiredKeys: [] }),
        value,
      );
      fc.assert(
        fc.property(input, (i) => {
          const zod = zodIssues(shape, i);
          // Where zod throws, the check still answers, and refuses the input.
          if (zod === undefined) expect(inputIssues(shape, i).length, tool).toBeGreaterThan(0);
          else expect(inputIssues(shape, i), tool).toEqual(zod);
          // The fast check decide() runs first says "valid" exactly when there is nothing to say.
          expect(inputValid(shape, i), tool).toBe(inputIssues(shape, i).length === 0);
        }),
        { numRuns: 300 },
      );
    }
  });

  it('accept the inputs Claude Code sends', () => {
    expect(inputIssues(TOOLS.Bash!.input!, { command: 'ls', timeout: 0, description: 'list' })).toEqual([]);
    expect(inputIssues(TOOLS.Read!.input!, { file_path: '/a', offset: 3, extra: { any: 1 } })).toEqual([]);
    expect(inputIssues(TOOLS.Read!.input!, { file_path: '' })).toEqual(['file_path: must not be empty']);
  });
});
