import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { REGISTRY } from '../../../src/bash/catalogue/index.js';
import { optionId } from '../../../src/bash/catalogue/interpret.js';
import type { CommandContext, CommandSpec, EffectSink } from '../../../src/bash/commands/spec.js';
import { parseCommandLine } from '../../../src/bash/parse.js';
import { dynamicWord, type Word } from '../../../src/bash/word.js';
import { loadCorpus } from '../../helpers/corpus.js';

/**
 * What the analyzers of a command group do, recorded call by call, so a change to an entry is
 * checked against what the group did before it (test/fixtures/catalogue-calls/GROUP.jsonl).
 * Every simple command of a line whose name is in the group is analyzed into a sink that
 * records every call, as written and with words added at run time. The old hand-written tables
 * were recorded this way before they were deleted; a reviewed change re-records the group
 * (`npx tsx test/bash/catalogue/record-calls.ts GROUP`) and the fixture's diff shows it.
 */
export interface CallRecord {
  readonly line: string;
  readonly command: string;
  /** The calls for the arguments as written. */
  readonly calls: readonly string[];
  /** The calls when a word is added at run time (`"$@"` after them). */
  readonly withRunTimeArgs: readonly string[];
}

export interface Difference {
  readonly line: string;
  readonly command: string;
  readonly old: readonly string[];
  readonly now: readonly string[];
}

/** Every record for `lines` (each line once), by the analyzer `specOf` gives each name of the group. */
export function recordCalls(
  specOf: (name: string) => CommandSpec | undefined,
  names: ReadonlySet<string>,
  lines: readonly string[],
): CallRecord[] {
  const records: CallRecord[] = [];
  // A line the corpora hold twice is recorded once.
  for (const line of new Set(lines)) {
    let parsed: ReturnType<typeof parseCommandLine>;
    try {
      parsed = parseCommandLine(line);
    } catch {
      continue;
    }
    for (const command of parsed.commands) {
      const nameWord = command.argv[0];
      if (command.kind !== 'command' || nameWord === undefined || nameWord.expansions.length > 0) continue;
      const name = nameWord.value.replace(/^\/(usr\/)?(local\/)?s?bin\//, '');
      if (!names.has(name)) continue;
      const spec = specOf(name);
      const run = (extraArgs: boolean): string[] => {
        if (spec === undefined) return ['(unknown to the catalogue)'];
        const args = extraArgs
          ? [...command.argv.slice(1), dynamicWord('(arguments added at run time)')]
          : command.argv.slice(1);
        const ctx: CommandContext = { name, args, command, line: parsed, extraArgs };
        return record((s) => spec.analyze(ctx, s));
      };
      records.push({ line, command: name, calls: run(false), withRunTimeArgs: run(true) });
    }
  }
  return records;
}

/** The fixture of a group, as recorded. */
export function loadCalls(group: string): CallRecord[] {
  return fs
    .readFileSync(callsFile(group), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as CallRecord);
}

export function saveCalls(group: string, records: readonly CallRecord[]): void {
  fs.mkdirSync(path.dirname(callsFile(group)), { recursive: true });
  fs.writeFileSync(callsFile(group), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

const callsFile = (group: string): string =>
  path.join(import.meta.dirname, '..', '..', 'fixtures', 'catalogue-calls', `${group}.jsonl`);

/**
 * The catalogue against a group's fixture: each recorded line analyzed again, and every record
 * whose calls differ (as written, or with run-time words). `compared` counts both.
 */
export function compareWithRecorded(group: string): { compared: number; differences: Difference[] } {
  const recorded = loadCalls(group);
  const names = new Set(recorded.map((r) => r.command));
  const lines = recorded.map((r) => r.line);
  const now = recordCalls((n) => REGISTRY.spec(n), names, lines);
  const byKey = new Map<string, CallRecord[]>();
  for (const r of now) {
    const k = `${r.line}\0${r.command}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const differences: Difference[] = [];
  const seen = new Map<string, number>();
  for (const r of recorded) {
    const k = `${r.line}\0${r.command}`;
    const i = seen.get(k) ?? 0;
    seen.set(k, i + 1);
    const n = byKey.get(k)?.[i];
    const pairs: [readonly string[], readonly string[] | undefined][] = [
      [r.calls, n?.calls],
      [r.withRunTimeArgs, n?.withRunTimeArgs],
    ];
    for (const [old, fresh] of pairs) {
      const b = fresh ?? ['(no such command in the line now)'];
      if (old.join('\n') !== b.join('\n'))
        differences.push({ line: r.line, command: r.command, old, now: b });
    }
  }
  return { compared: recorded.length * 2, differences };
}

const w = (x: Word | undefined): string =>
  x === undefined ? '-' : `${x.raw}|${x.value}|${x.expansions.join(',')}`;

/** Every call an analyzer makes, as text. */
function record(run: (sink: EffectSink) => void): string[] {
  const out: string[] = [];
  const sink: EffectSink = {
    read: (t) => out.push(`read ${w(t)}`),
    alias: (t) => out.push(`alias ${w(t)}`),
    readTree: (t, how) => out.push(`readTree ${w(t)} ${JSON.stringify(how)}`),
    write: (t, how, why) => out.push(`write ${w(t)} ${how} ${why}`),
    remove: (t, why) => out.push(`remove ${w(t)} ${why}`),
    run: (argv, via, opts) => out.push(`run ${argv.map(w).join(' ')} ${via} ${JSON.stringify(opts ?? {})}`),
    runScript: (code, via, opts) => out.push(`runScript ${w(code)} ${via} ${JSON.stringify(opts ?? {})}`),
    opaque: (why) => out.push(`opaque ${why}`),
    network: (why, sends) => out.push(`network ${sends} ${why}`),
    destination: (h) => out.push(`destination ${w(h)}`),
    change: (why, d) => out.push(`change ${d} ${why}`),
    notUnderstood: (why) => out.push(`notUnderstood ${why}`),
    lingers: (why) => out.push(`lingers ${why}`),
    unknownCode: (why) => out.push(`unknownCode ${why}`),
    runsStdin: (why) => out.push(`runsStdin ${why}`),
    exportVariable: (n, v) => out.push(`export ${n} ${w(v)}`),
    // Traits are new: the old analyzers report none.
    trait: () => {},
  };
  run(sink);
  return out;
}

/** The public, adversarial and bypass corpora's lines. */
export function corpusLines(): string[] {
  return ['bash-labelled.jsonl', 'bash-adversarial.jsonl', 'policy-bypasses.jsonl'].flatMap((f) =>
    loadCorpus(f).map((l) => l.command),
  );
}

/** Every example line of the catalogue. */
export function exampleLines(): string[] {
  return REGISTRY.entries.flatMap((e) => [
    ...(e.examples.readOnly ?? []),
    ...(e.examples.notReadOnly ?? []),
    ...(e.examples.destructive ?? []),
  ]);
}

/**
 * Fuzzed lines for the commands of a group: each name with words drawn from its entry's options
 * (every spelling: short, long, abbreviated, attached and separate values, clustered), file
 * names, dynamic words, `--` and stray dashes.
 */
export function fuzzedLines(names: readonly string[], runs: number, seed = 15): string[] {
  const word = (name: string): fc.Arbitrary<string> => {
    const specs = Object.keys(REGISTRY.entry(name)?.options ?? {});
    const spellings = specs.flatMap((spec) => {
      const takes = spec.endsWith('=') ? '=' : spec.endsWith('?') ? '?' : '';
      const names = spec.replace(/[=?]$/, '').split('|');
      return names.flatMap((n) => {
        const dash = n.length === 1 ? `-${n}` : `--${n}`;
        const forms = [dash];
        if (n.length > 3) forms.push(`--${n.slice(0, 3)}`);
        if (takes === '=') forms.push(n.length === 1 ? `-${n}out.txt` : `--${n}=out.txt`, `${dash} out.txt`);
        if (takes === '?') forms.push(n.length === 1 ? `-${n}x` : `--${n}=x`);
        return forms;
      });
    });
    void optionId;
    return fc.oneof(
      { weight: 3, arbitrary: spellings.length > 0 ? fc.constantFrom(...spellings) : fc.constant('-x') },
      fc.constantFrom(
        'f.txt',
        'out',
        '-',
        '--',
        '-',
        '/dev/null',
        '/etc/passwd',
        "'s/a/b/w x'",
        '\'{print > "o"}\'',
      ),
      fc.constantFrom(
        '"$x"',
        '$x',
        '*.txt',
        '$(cat f)',
        '-$o',
        '--$o',
        '"$@"',
        '>(wc)',
        '~/f',
        '-zz',
        '--nope',
      ),
      fc.constantFrom('-ab', '-oF', '-io', '-n5', '-5', '.name', '\'BEGIN{system("id")}\''),
    );
  };
  const line = fc
    .constantFrom(...names)
    .chain((name) => fc.array(word(name), { maxLength: 6 }).map((ws) => [name, ...ws].join(' ')));
  return fc.sample(line, { numRuns: runs, seed });
}

/**
 * Intended by holes (#16, reads of run-time file lists and of trees): the catalogue reads more
 * than the old table did and nothing else changed. Each old call is still there (a `read` may
 * have become a `readTree` of the same word: diff of directories), and each added one is a read
 * of the files a list names (`--files0-from`, `--batch`), of every object, or of a tree.
 */
export function holesWidenedReads(d: Difference): boolean {
  const tree = (c: string) => c.replace(/^read /, 'readTree ');
  const kept = d.old.every((c) => d.now.includes(c) || d.now.some((n) => n.startsWith(`${tree(c)} `)));
  const widened = (c: string) =>
    d.old.includes(c) ||
    c.startsWith('read (files listed in ') ||
    c.startsWith('read (every object') ||
    (c.startsWith('readTree ') && d.old.some((o) => c.startsWith(`${tree(o)} `)));
  return kept && d.now.every(widened) && d.now.length >= d.old.length;
}
