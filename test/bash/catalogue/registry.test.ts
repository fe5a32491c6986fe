import { describe, expect, it } from 'vitest';
import type { CatalogueEntry } from '../../../src/bash/catalogue/entry.js';
import { handWritten } from '../../../src/bash/catalogue/hand-written.js';
import { buildRegistry, CatalogueError } from '../../../src/bash/catalogue/registry.js';
import { printer } from '../../../src/bash/commands/spec.js';

const entry = (over: Partial<CatalogueEntry> = {}): CatalogueEntry => ({
  name: 'frob',
  summary: 'frobs',
  shape: { kind: 'reader' },
  options: { 'o|output=': 'writes' },
  unknownOptions: 'fail',
  examples: { readOnly: ['frob f'] },
  ...over,
});

function problems(entries: readonly CatalogueEntry[]): readonly string[] {
  try {
    buildRegistry(entries);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogueError);
    return (e as CatalogueError).problems;
  }
}

/** The registry refuses, at load, what would silently change what a command means. */
describe('buildRegistry', () => {
  it('accepts a well-formed entry and compiles it on first use', () => {
    const r = buildRegistry([entry(), entry({ name: 'zap', shape: { kind: 'printer' } })]);
    expect(r.spec('frob')).toBe(r.spec('frob'));
    expect(r.spec('zap')).toBeDefined();
    expect(r.spec('nope')).toBeUndefined();
  });

  it('refuses a name defined twice: by two entries or an alias', () => {
    expect(problems([entry(), entry()])).toEqual(['"frob" is defined twice (entry frob and entry frob)']);
    expect(problems([entry(), entry({ name: 'frobnicate', aliases: ['frob'] })])).toHaveLength(1);
  });

  it('refuses an effect, trait or shape outside the closed sets', () => {
    const bad = { options: { 'o|output=': 'scribbles' } } as unknown as Partial<CatalogueEntry>;
    expect(problems([entry(bad)])).toEqual([
      'entry frob: option "o|output=" has an unknown effect "scribbles"',
    ]);
    const trait = { traits: ['sudo'] } as unknown as Partial<CatalogueEntry>;
    expect(problems([entry(trait)])).toEqual(['entry frob: unknown trait "sudo"']);
    const shape = { shape: { kind: 'magic' } } as unknown as Partial<CatalogueEntry>;
    expect(problems([entry(shape)])).toEqual(['entry frob: unknown shape "magic"']);
  });

  it("refuses a subcommand's malformed option name, or a compound letter standing for an unlisted one", () => {
    const subs = (o: CatalogueEntry['subcommandOptions']) => problems([entry({ subcommandOptions: o })]);
    expect(subs({ push: { options: ['f|force'], compound: { F: ['force'] } } })).toEqual([]);
    expect(subs({ push: { options: ['--force'] } })).toEqual([
      'entry frob push: option "--force" is not in getopt form',
    ]);
    expect(subs({ branch: { options: ['d|delete'], compound: { D: ['delete', 'force'] } } })).toEqual([
      'entry frob branch: -D stands for "force", which is not listed',
    ]);
  });

  it('refuses an entry without examples, a malformed option, or a shape naming an unlisted option', () => {
    expect(problems([entry({ examples: {} })])).toEqual(['entry frob: no examples']);
    expect(problems([entry({ options: { '--output': 'writes' } })])).toEqual([
      'entry frob: option "--output" is not in getopt form',
    ]);
    expect(problems([entry({ shape: { kind: 'writer', append: 'append' } })])).toEqual([
      'entry frob: the shape names option "append", which is not listed',
    ]);
  });

  it('refuses an escape hatch without its analyzer or without an example it catches', () => {
    const hatch = {
      shape: { kind: 'escape', why: 'its own language' },
    } as unknown as Partial<CatalogueEntry>;
    expect(problems([entry(hatch)])).toEqual([
      'entry frob: an escape hatch needs its analyzer',
      'entry frob: an escape hatch shows what it catches (an example that is not read-only)',
    ]);
  });

  it('refuses a hand-written group with a command it does not describe, or describes one it lacks', () => {
    const table = { zap: printer(), frob: printer() };
    const ex = { readOnly: ['zap x'] };
    expect(() => handWritten(table, 'why', { zap: ['zaps', ex] })).toThrow(
      /entry frob: no summary and examples/,
    );
    expect(() => handWritten({ zap: table.zap }, 'why', { zap: ['zaps', ex], frob: ['frobs', ex] })).toThrow(
      /entry frob: described, but no analyzer has that first name/,
    );
    const shared = printer();
    const [one] = handWritten({ zap: shared, zip: shared }, 'why', { zap: ['zaps', ex] });
    expect(one).toMatchObject({ name: 'zap', aliases: ['zip'], shape: { kind: 'hand-written' } });
  });
});
