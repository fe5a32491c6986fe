import type { CommandReport, LineAnalysis } from '../bash/analyze.js';
import type { CwdSet } from '../bash/command-line.js';
import type { TreeRead, WriteHow } from '../bash/commands/spec.js';
import { variableRisk } from '../bash/environment.js';
import { isDynamic, type Word } from '../bash/word.js';
import { resolveAsOpened } from './dot-dot.js';
import type { FileSystemView } from './fs-view.js';
import { hostOf, normalizeHost } from './match/domain.js';
import { absolutePath } from './workspace.js';

/**
 * A Bash line, seen by the policy: one part per simple command the line runs (nested ones
 * included), each with the text rules match and the files it reads and writes, resolved to
 * absolute paths. A path only known at run time stays unknown (undefined), never guessed.
 */
export interface PathRef {
  /** As written. */
  readonly raw: string;
  /** Every absolute path it can be; undefined when the line does not show it. */
  readonly paths: readonly string[] | undefined;
}

export interface WriteRef extends PathRef {
  readonly viaRedirect: boolean;
  readonly how: WriteHow;
}

export interface RemoveRef extends PathRef {
  /** It goes with everything below it (`rm -r`, `find -delete`, `rsync --delete`). */
  readonly tree: boolean;
}

/** A host a command connects to (see EffectSink.destination). */
export interface HostRef {
  /** As written. */
  readonly raw: string;
  /**
   * The names it is, normalized as WebFetch's host is (lower case, no trailing dot, IDN and
   * percent-escapes resolved), and as spelled; undefined when only known at run time.
   */
  readonly names: readonly string[] | undefined;
}

export interface BashPart {
  readonly report: CommandReport;
  /** The command name (basename for system binaries); '' for a bare redirect or assignment. */
  readonly name: string;
  readonly display: string;
  /** Words joined: static words as bash passes them, dynamic ones as written. */
  readonly denyText: string;
  /**
   * What deny and ask rules match: `denyText`, and the command without the options before its
   * first operand, each option taken with or without the next word as its value (`git -C .
   * push` is also `git push`, `kubectl -n prod delete` also `kubectl delete`). A rule about a
   * subcommand is not escaped by a global option. Allow rules never see these forms.
   */
  readonly denyTexts: readonly string[];
  /** The words of each of `denyTexts`, in the same order (rules naming options read them). */
  readonly denyWords: readonly (readonly string[])[];
  /** All words, as in `denyText`. */
  readonly words: readonly string[];
  /**
   * For each of those forms with a word only known at run time (not the name): the static words
   * before it. A deny or ask rule that a command starting so could match cannot be ruled out.
   */
  readonly denyPrefixes: readonly string[];
  /** The static words up to the first dynamic one. */
  readonly allowText: string;
  /** Whether words after `allowText` are only known at run time. */
  readonly dynamicTail: boolean;
  /** The command name itself is only known at run time. */
  readonly dynamicName: boolean;
  /** Every `X=1` before the command is harmless (allow rules may look past only those). */
  readonly harmlessEnv: boolean;
  readonly reads: readonly PathRef[];
  /** What the links it creates point at (also among `reads`): writing the link writes these. */
  readonly aliases: readonly PathRef[];
  /** Directories it reads every file below (grep -r, rg, tar -c), also among `reads`. */
  readonly readTrees: readonly (PathRef & { readonly how: TreeRead })[];
  readonly writes: readonly WriteRef[];
  readonly removes: readonly RemoveRef[];
  readonly hosts: readonly HostRef[];
  /** The directories it may run in; undefined when a `cd` made that unknown. */
  readonly cwds: readonly string[] | undefined;
  /**
   * Whether an allow rule may approve it: not when what it runs is not what the rule names
   * (the command's knowledge says so with the `no-prefix-allow` trait).
   */
  readonly prefixAllowable: boolean;
}

const SYSTEM_BINARY = /^\/(usr\/)?(local\/)?s?bin\/([^/]+)$/;

export function bashParts(analysis: LineAnalysis, cwd: string, fs: FileSystemView): BashPart[] {
  return analysis.reports.map((report) => {
    const words = report.argv;
    const first = words[0];
    const name = first === undefined ? '' : commandName(first);
    const texts = words.map((w, i) => (i === 0 && !isDynamic(w) ? name : isDynamic(w) ? w.raw : w.value));
    const firstDynamic = words.findIndex((w) => isDynamic(w));
    const denyText = texts.join(' ');
    // The first form is every word, as they are: its text is the command's.
    const forms = ruleForms(texts).map((idx, n) => ({
      text: n === 0 ? denyText : idx.map((i) => texts[i]).join(' '),
      dynamicAt: idx.findIndex((i) => isDynamic(words[i]!)),
      idx,
    }));
    const byText = new Map(forms.map((f, n) => [f.text, n === 0 ? texts : f.idx.map((i) => texts[i]!)]));
    const cwds = resolveCwds(report.cwd, cwd, fs.home);
    const resolve = (w: Word): PathRef => ({ raw: w.raw, paths: resolveWord(w, cwds, fs) });
    return {
      report,
      name,
      display:
        words.map((w) => w.raw).join(' ') ||
        analysis.line.source.slice(report.start, report.end).trim() ||
        '(redirection)',
      denyText,
      denyTexts: [...byText.keys()],
      denyWords: [...byText.values()],
      words: texts,
      denyPrefixes: [
        ...new Set(
          forms
            .filter((f) => f.dynamicAt > 0)
            .map((f) =>
              f.idx
                .slice(0, f.dynamicAt)
                .map((i) => texts[i])
                .join(' '),
            ),
        ),
      ],
      allowText: firstDynamic < 0 ? denyText : texts.slice(0, firstDynamic).join(' '),
      dynamicTail: firstDynamic >= 0,
      dynamicName: firstDynamic === 0,
      harmlessEnv: report.env.every(
        (e) => variableRisk(e.name, isDynamic(e.value) ? undefined : e.value.value).kind === 'harmless',
      ),
      reads: report.reads.map(resolve),
      aliases: report.aliases.map(resolve),
      readTrees: report.readTrees.map((t) => ({ ...resolve(t.root), how: t.how })),
      writes: report.writes.map((w) => ({ ...resolve(w.target), viaRedirect: w.viaRedirect, how: w.how })),
      removes: report.removes.map((w) => ({ ...resolve(w), tree: report.removeTrees.includes(w) })),
      hosts: report.hosts.map(hostRef),
      cwds,
      prefixAllowable: !report.traits.includes('no-prefix-allow'),
    };
  });
}

function hostRef(w: Word): HostRef {
  if (isDynamic(w)) return { raw: w.raw, names: undefined };
  const spelled = normalizeHost(w.value.replace(/^\[(.*)\]$/, '$1'));
  const parsed = hostOf(`http://${w.value}/`);
  return { raw: w.raw, names: parsed === undefined || parsed === spelled ? [spelled] : [spelled, parsed] };
}

const MAX_LEADING_OPTIONS = 16;

/**
 * The word indexes of each form rules match: all words, and the name followed by what comes
 * after any run of leading options, each option with or without one value word.
 */
function ruleForms(texts: readonly string[]): number[][] {
  const all = texts.map((_, i) => i);
  // Most commands have no option before their first operand: every word is the only form.
  const second = texts[1];
  if (second === undefined || second === '-' || !second.startsWith('-')) return [all];
  const starts = new Set<number>();
  const seen = new Set<number>();
  const stack = [1];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    const w = texts[i];
    if (w === undefined || w === '-' || !w.startsWith('-') || i > MAX_LEADING_OPTIONS) {
      starts.add(i);
      continue;
    }
    stack.push(i + 1);
    if (!w.includes('=')) stack.push(i + 2);
  }
  starts.delete(1);
  return [all, ...[...starts].sort((a, b) => a - b).map((i) => [0, ...all.slice(i)])];
}

/** `/usr/bin/rm` is `rm`; `\rm` and `'r'm` were decoded by the parser already. */
export function commandName(w: Word): string {
  if (isDynamic(w)) return w.raw;
  const m = SYSTEM_BINARY.exec(w.value);
  return m ? m[3]! : w.value;
}

/** As bash's `cd` (logical unless -P) takes them: `cd link/..` is back where it started. */
function resolveCwds(set: CwdSet, cwd: string, home: string): string[] | undefined {
  if (set === null) return undefined;
  return set.map((c) => absolutePath(c, cwd, home));
}

/**
 * The paths a word names. Static: itself. `~/x`: under home. A glob: what bash would expand it
 * to now (bounded). Brace expansion of an otherwise static word: each alternative. Anything
 * else (variables, substitutions): unknown.
 */
export function resolveWord(
  w: Word,
  cwds: readonly string[] | undefined,
  fs: FileSystemView,
): string[] | undefined {
  const kinds = new Set(w.expansions);
  if ([...kinds].some((k) => k !== 'tilde' && k !== 'glob' && k !== 'brace')) return undefined;
  const absolute = w.value.startsWith('/') || w.value.startsWith('~');
  if (cwds === undefined && !absolute) return undefined;
  const bases = absolute ? ['/'] : cwds!;
  const alternatives = kinds.has('brace') ? expandBraces(w.value) : [w.value];
  if (alternatives === undefined) return undefined;
  const out: string[] = [];
  for (const alt of alternatives) {
    for (const base of bases) {
      const candidate =
        alt === '~' || alt.startsWith('~/')
          ? absolutePath(alt, base, fs.home)
          : alt.startsWith('~')
            ? undefined
            : alt;
      if (candidate === undefined) return undefined;
      if (kinds.has('glob') && /[*?[]/.test(candidate)) {
        const matches = fs.glob(candidate, base);
        if (matches === undefined) return undefined;
        out.push(...matches);
      } else out.push(resolveAsOpened(base, candidate, fs));
    }
  }
  return [...new Set(out)];
}

/** `a{b,c}d` -> [abd, acd]; `{1..3}` -> [1, 2, 3]. Undefined when it would be too many. */
export function expandBraces(text: string): string[] | undefined {
  const results: string[] = [];
  const stack = [text];
  while (stack.length > 0) {
    if (results.length + stack.length > 256) return undefined;
    const t = stack.pop()!;
    const group = findBraceGroup(t);
    if (group === undefined) {
      results.push(t);
      continue;
    }
    const [open, close, parts] = group;
    for (const p of parts.reverse()) stack.push(t.slice(0, open) + p + t.slice(close + 1));
  }
  return results.reverse();
}

function findBraceGroup(t: string): [number, number, string[]] | undefined {
  for (let open = t.indexOf('{'); open >= 0; open = t.indexOf('{', open + 1)) {
    if (t[open - 1] === '$') continue;
    let depth = 0;
    let start = open + 1;
    const parts: string[] = [];
    for (let i = open + 1; i < t.length; i++) {
      const c = t[i];
      if (c === '{') depth++;
      else if (c === '}') {
        if (depth === 0) {
          parts.push(t.slice(start, i));
          if (parts.length > 1) return [open, i, parts];
          const seq = /^(-?\d+)\.\.(-?\d+)$/.exec(parts[0]!) ?? /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(parts[0]!);
          if (seq) return [open, i, sequence(seq[1]!, seq[2]!)];
          break;
        }
        depth--;
      } else if (c === ',' && depth === 0) {
        parts.push(t.slice(start, i));
        start = i + 1;
      }
    }
  }
  return undefined;
}

function sequence(from: string, to: string): string[] {
  const numeric = /^-?\d+$/.test(from);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = a <= b ? 1 : -1;
  const out: string[] = [];
  for (let x = a; step > 0 ? x <= b : x >= b; x += step) {
    out.push(numeric ? String(x) : String.fromCharCode(x));
    if (out.length > 256) break;
  }
  return out;
}
