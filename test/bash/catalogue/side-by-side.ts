import fc from 'fast-check';
import { REGISTRY } from '../../../src/bash/catalogue/index.js';
import { optionId } from '../../../src/bash/catalogue/interpret.js';
import type { CommandContext, CommandTable, EffectSink } from '../../../src/bash/commands/spec.js';
import { parseCommandLine } from '../../../src/bash/parse.js';
import { dynamicWord, type Word } from '../../../src/bash/word.js';
import { loadCorpus } from '../../helpers/corpus.js';

/**
 * Old and new knowledge of a command group, side by side: every simple command of a line whose
 * name the old table knows is analyzed by the old analyzer and by the catalogue's, each into a
 * sink that records every call, and the two recordings are compared. While a table is being
 * converted the old one lives beside this file (legacy/), then goes.
 */
export interface Difference {
  readonly line: string;
  readonly command: string;
  readonly old: readonly string[];
  readonly now: readonly string[];
}

export function compareGroup(
  table: CommandTable,
  lines: readonly string[],
): { compared: number; differences: Difference[] } {
  let compared = 0;
  const differences: Difference[] = [];
  for (const line of lines) {
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
      const old = Object.hasOwn(table, name) ? table[name] : undefined;
      if (old === undefined) continue;
      const now = REGISTRY.spec(name);
      for (const extraArgs of [false, true]) {
        const args = extraArgs
          ? [...command.argv.slice(1), dynamicWord('(arguments added at run time)')]
          : command.argv.slice(1);
        const ctx: CommandContext = { name, args, command, line: parsed, extraArgs };
        const a = record((s) => old.analyze(ctx, s));
        const b = now === undefined ? ['(unknown to the catalogue)'] : record((s) => now.analyze(ctx, s));
        compared++;
        if (a.join('\n') !== b.join('\n')) differences.push({ line, command: name, old: a, now: b });
      }
    }
  }
  return { compared, differences };
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
