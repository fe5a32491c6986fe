import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/bash/catalogue/effect.js';
import type { CatalogueEntry } from '../../../src/bash/catalogue/entry.js';
import { CATALOGUE } from '../../../src/bash/catalogue/index.js';
import { handledBy, optionId } from '../../../src/bash/catalogue/interpret.js';
import { classifyBash } from '../../../src/bash/classify.js';

/**
 * Every option the catalogue lists, held to what the classifier does with it: each is added to
 * one of its entry's examples and the verdict must be the one its effect claims. For a
 * hand-written analyzer the options are read from the table it parses with, so this is what
 * keeps `toolgate catalogue` true to the code. An option no entry lists must fail closed unless
 * the entry says unknown options are harmless.
 */

/**
 * The verdict an effect claims, given the line without the option. `no-worse`: it adds nothing
 * (a read-only line stays read-only, one that is not destructive stays so); it may take away
 * (`--help`, `--dry-run`).
 */
const CLAIM: Readonly<Record<Effect, 'no-worse' | 'not-read-only' | 'destructive' | 'lingers'>> = {
  harmless: 'no-worse',
  reads: 'no-worse',
  'reads-list': 'no-worse',
  lingers: 'lingers',
  writes: 'destructive',
  appends: 'not-read-only',
  removes: 'destructive',
  'runs-code': 'destructive',
  'runs-program': 'destructive',
  network: 'not-read-only',
  'sends-data': 'destructive',
  kills: 'destructive',
  'changes-system': 'not-read-only',
  unmodelled: 'not-read-only',
};

/**
 * The example the options are tried on: a read-only one when it has one, so a claim can show,
 * but not one that only asks (`dbus-run-session --version`: with any other option it runs).
 */
function baseOf(e: CatalogueEntry): string | undefined {
  const ex = e.examples;
  const asks = (l: string) => /^\S+ -\S+$/.test(l);
  return ex.readOnly?.find((l) => !asks(l)) ?? ex.notReadOnly?.[0] ?? ex.destructive?.[0] ?? ex.readOnly?.[0];
}

const quoteRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `base` with `option` right after the first word that names the entry. */
function withOption(e: CatalogueEntry, base: string, option: string): string | undefined {
  for (const n of [e.name, ...(e.aliases ?? [])]) {
    const m = new RegExp(`(^|[|;&(]\\s*|\\s)${quoteRe(n)}(?=\\s|$)`).exec(base);
    if (m) {
      const at = m.index + m[0].length;
      return `${base.slice(0, at)} ${option}${base.slice(at)}`;
    }
  }
  return undefined;
}

/**
 * Options whose effect is in one value, or only with a value: how to write them so it shows. The
 * other spellings are held by the entries' examples and test/bash/option-values.test.ts.
 */
const SPELLED_AS: Readonly<Record<string, readonly string[]>> = {
  // exec=CMD runs CMD; the other actions print or wait, and one tar does not know stops it.
  'tar checkpoint-action': ['--checkpoint-action=exec=v.txt'],
  // A setting runs code only if it names one (core.pager); most are harmless.
  'git c': ['-c core.pager=v.txt'],
  // Without a directory git prints where its programs are, and stops.
  'git exec-path': ['--exec-path=v.txt'],
  // Without a file script writes the timings to stderr (util-linux script(1)).
  'script timing': ['--timing=v.txt'],
};

/**
 * The ways the option is written on a line: its long name when it has one, with a value when it
 * takes one. An optional value is tried both with one (the value is where its effect usually is,
 * `--exec-path=DIR`) and without (gawk -d writes awkvars.out when given no file).
 */
function spelled(e: CatalogueEntry, spec: string): readonly string[] {
  const as = SPELLED_AS[`${e.name} ${optionId(spec)}`];
  if (as !== undefined) return as;
  const names = spec.replace(/[=?]$/, '').split('|');
  const long = names.find((n) => n.length > 1);
  const bare = long !== undefined ? `--${long}` : `-${names[0]}`;
  if (spec.endsWith('?')) return [long !== undefined ? `${bare}=v.txt` : `${bare}v.txt`, bare];
  if (spec.endsWith('=')) return [long !== undefined ? `${bare}=v.txt` : `${bare} v.txt`];
  return [bare];
}

function mismatch(claim: string, base: ReturnType<typeof classifyBash>, line: string): string | undefined {
  const f = classifyBash(line);
  const ok =
    claim === 'no-worse'
      ? (f.readOnly || !base.readOnly) && (!f.destructive || base.destructive)
      : claim === 'lingers'
        ? (f.readOnly || !base.readOnly) && !f.concurrencySafe
        : claim === 'not-read-only'
          ? !f.readOnly
          : f.destructive;
  return ok
    ? undefined
    : `${line}: claims ${claim}, got readOnly=${f.readOnly} destructive=${f.destructive} (${f.reasons.join('; ')})`;
}

const listed = CATALOGUE.filter((e) => Object.keys(e.options ?? {}).length > 0);

describe('declared options agree with the classifier', () => {
  it('lists options for most entries', () => expect(listed.length).toBeGreaterThan(120));
  for (const e of listed) {
    it(`${e.name} (${e.shape.kind})`, () => {
      const base = baseOf(e)!;
      const before = classifyBash(base);
      const wrong: string[] = [];
      // What the shape does with an option (a writer's -a on its operands) its own examples show;
      // an escape's analyzer does an option's whole effect itself, so its claim is held here too.
      const handled = e.shape.kind === 'escape' ? [] : handledBy(e.shape);
      for (const [spec, effect] of Object.entries(e.options ?? {})) {
        if (handled.includes(optionId(spec))) continue;
        for (const option of spelled(e, spec)) {
          const line = withOption(e, base, option);
          if (line === undefined) {
            wrong.push(`${base}: does not name ${e.name}`);
            break;
          }
          const m = mismatch(CLAIM[effect], before, line);
          if (m) wrong.push(`${spec} (${effect}): ${m}`);
        }
      }
      const unknown = withOption(e, base, '--zz-undeclared-option');
      if (unknown !== undefined) {
        const m = mismatch(e.unknownOptions === 'harmless' ? 'no-worse' : 'not-read-only', before, unknown);
        if (m) wrong.push(`an option not listed (unknownOptions: ${e.unknownOptions}): ${m}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
