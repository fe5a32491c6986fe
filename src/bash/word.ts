/**
 * A word as bash would pass it to a program: quotes removed, escapes decoded, adjacent pieces
 * joined. A word that contains any expansion is "dynamic": its run-time value is not known
 * from the line alone.
 */
export type ExpansionKind = 'variable' | 'command' | 'arithmetic' | 'process' | 'glob' | 'brace' | 'tilde';

export interface Word {
  /** The decoded value; expansions appear as their source text. */
  readonly value: string;
  /** The word exactly as written. */
  readonly raw: string;
  /** The expansions it contains (empty for a static word). */
  readonly expansions: readonly ExpansionKind[];
  /** Whether the run-time value may begin with characters the line does not show (e.g. `-o`). */
  readonly dynamicStart: boolean;
  /** How many characters at the start of `value` are known before run time. */
  readonly staticPrefix?: number;
  /** What the word starts with when it starts with an expansion. */
  readonly leading?: Leading;
  /**
   * Unquoted expansions after the start (`a$x`, `a$(cmd)`): bash splits their values into words,
   * so each may start a word of its own (`x='b --output=f'` makes `a$x` an option too).
   */
  readonly splitLeads?: readonly Leading[];
}

/** The expansion a dynamic word starts with: a variable (by name), a command substitution (its text), or a pattern. */
export type Leading =
  | { readonly kind: 'variable'; readonly name: string }
  | { readonly kind: 'command'; readonly text: string }
  | { readonly kind: 'glob' | 'brace' | 'tilde' | 'arithmetic' | 'process' };

export function isDynamic(word: Word): boolean {
  return word.expansions.length > 0;
}

/** Static, or dynamic only through a leading `~` that the caller can resolve to the home directory. */
export function isStaticOrTilde(word: Word): boolean {
  return word.expansions.every((e) => e === 'tilde');
}

export function staticWord(value: string): Word {
  return { value, raw: value, expansions: [], dynamicStart: false };
}

/** A word only known at run time (placeholders for what a program fills in). */
export function dynamicWord(text: string, leading: Leading = { kind: 'variable', name: '_' }): Word {
  return { value: text, raw: text, expansions: ['variable'], dynamicStart: true, staticPrefix: 0, leading };
}

/**
 * Builds words piece by piece. Each piece is either literal text that bash treats as quoted
 * (no globbing, no brace or tilde expansion), literal text that is "active" (unquoted), or an
 * expansion whose value is unknown.
 */
export class WordBuilder {
  private value = '';
  /**
   * Where `value` is unquoted and unescaped, as [start, end) pairs. Only those characters can
   * glob, brace- or tilde-expand, so the per-character view is built only when one of them is
   * a pattern character.
   */
  private activeRuns: number[] | undefined;
  private activePattern = false;
  private kinds: Set<ExpansionKind> | undefined;
  private firstIsDynamic: boolean | undefined;
  private firstExpansionAt: number | undefined;
  private lead: Leading | undefined;
  private splits: Leading[] | undefined;
  /** Inside double quotes: expansions are not split into words. */
  quoted = false;

  literal(text: string, unquoted: boolean): void {
    if (text.length === 0) return;
    if (this.firstIsDynamic === undefined) this.firstIsDynamic = false;
    if (unquoted) {
      const at = this.value.length;
      if (this.activeRuns === undefined) this.activeRuns = [at, at + text.length];
      else this.activeRuns.push(at, at + text.length);
      if (!this.activePattern && PATTERN_START.test(text)) this.activePattern = true;
    }
    this.value += text;
  }

  expansion(kind: ExpansionKind, sourceText: string, leading?: Leading): void {
    if (this.firstIsDynamic !== undefined && !this.quoted && (kind === 'variable' || kind === 'command')) {
      this.splits ??= [];
      this.splits.push(leading ?? { kind: 'variable', name: '?' });
    }
    if (this.firstIsDynamic === undefined) {
      this.firstIsDynamic = true;
      this.lead = leading ?? (kind === 'variable' || kind === 'command' ? undefined : { kind });
    }
    this.firstExpansionAt ??= this.value.length;
    if (this.kinds === undefined) this.kinds = new Set([kind]);
    else this.kinds.add(kind);
    this.value += sourceText;
  }

  build(raw: string): Word {
    const value = this.value;
    let kinds = this.kinds;
    let startsWithPattern = false;
    let staticPrefix = this.firstExpansionAt ?? value.length;
    let directoryTilde: Leading | undefined;
    if (this.activePattern) {
      // Some unquoted character may start a glob, a brace or a tilde: look at each one.
      const active = this.activeFlags();
      directoryTilde = active[0] === true ? directoryTildeOf(value) : undefined;
      const patternKinds = patternExpansions(value, active);
      if (patternKinds.length > 0) kinds ??= new Set();
      for (const k of patternKinds) kinds!.add(k);
      // A glob or brace at the very start can expand to a word starting with "-".
      startsWithPattern = patternKinds.length > 0 && active[0] === true && /^[*?[{]/.test(value);
      for (let i = 0; i < staticPrefix; i++) {
        if (active[i] && '*?[{'.includes(value[i]!)) {
          staticPrefix = i;
          break;
        }
      }
    }
    const dynamicStart = this.firstIsDynamic === true || startsWithPattern || directoryTilde !== undefined;
    if (kinds === undefined || kinds.size === 0) return { value, raw, expansions: [], dynamicStart };
    if (directoryTilde !== undefined) staticPrefix = 0;
    const leading: Leading | undefined = startsWithPattern
      ? { kind: value[0] === '{' ? 'brace' : 'glob' }
      : directoryTilde !== undefined
        ? directoryTilde
        : this.firstIsDynamic
          ? this.lead
          : undefined;
    const expansions = [...kinds];
    const word: Word =
      leading === undefined
        ? { value, raw, expansions, dynamicStart, staticPrefix }
        : { value, raw, expansions, dynamicStart, staticPrefix, leading };
    return this.splits === undefined ? word : { ...word, splitLeads: this.splits };
  }

  /** One flag per UTF-16 unit of `value`: true where the character is unquoted and unescaped. */
  private activeFlags(): boolean[] {
    const active: boolean[] = new Array<boolean>(this.value.length).fill(false);
    const runs = this.activeRuns ?? [];
    for (let r = 0; r < runs.length; r += 2) active.fill(true, runs[r], runs[r + 1]);
    return active;
  }
}

/**
 * `~+` is $PWD, `~-` $OLDPWD, `~N`/`~+N`/`~-N` entries of the directory stack: values of
 * variables a line can set to anything (`OLDPWD=--output=x; git diff ~-`), not the home
 * directory. Such a tilde leads its word the way `$OLDPWD` would.
 */
function directoryTildeOf(value: string): Leading | undefined {
  const m = /^~([+-]?)(\d*)(?=\/|$)/.exec(value);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const name = m[2] !== '' ? 'DIRSTACK' : m[1] === '+' ? 'PWD' : 'OLDPWD';
  return { kind: 'variable', name };
}

/** The characters that can start a glob (`*`, `?`, `[`), a brace expansion or a tilde. */
const PATTERN_START = /[*?[{~]/;

/** Globs, brace expansion and tilde expansion only happen on unquoted characters. */
function patternExpansions(v: string, act: boolean[]): ExpansionKind[] {
  const out: ExpansionKind[] = [];
  if (act[0] === true && v[0] === '~') out.push('tilde');
  let glob = false;
  let openBracket = -1;
  for (let i = 0; i < v.length && !glob; i++) {
    if (!act[i]) continue;
    const c = v[i];
    if (c === '*' || c === '?') glob = true;
    else if (c === '[') openBracket = i;
    else if (c === ']' && openBracket >= 0 && i > openBracket + 1) glob = true;
  }
  if (glob) out.push('glob');
  if (hasBraceExpansion(v, act)) out.push('brace');
  return out;
}

/** `{a,b}` or `{1..3}` with unquoted braces; `{}` (find's placeholder) and `{x}` are literal. */
function hasBraceExpansion(v: string, act: boolean[]): boolean {
  for (let open = 0; open < v.length; open++) {
    if (!act[open] || v[open] !== '{') continue;
    if (open > 0 && v[open - 1] === '$' && act[open - 1]) continue;
    let depth = 0;
    let separator = false;
    for (let i = open + 1; i < v.length; i++) {
      if (!act[i]) continue;
      const c = v[i];
      if (c === '{') depth++;
      else if (c === '}') {
        if (depth === 0) {
          if (separator) return true;
          break;
        }
        depth--;
      } else if (depth === 0 && (c === ',' || (c === '.' && v[i + 1] === '.' && act[i + 1])))
        separator = true;
    }
  }
  return false;
}

/** Backslash escapes in unquoted text: `\x` is `x`, and a backslash-newline disappears. */
export function decodeUnquoted(text: string, emit: (chunk: string, unquoted: boolean) => void): void {
  let i = 0;
  let run = '';
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      if (run) emit(run, true);
      run = '';
      const next = text[i + 1];
      if (next === undefined) {
        emit('\\', false);
        i++;
      } else if (next === '\n') {
        i += 2;
      } else {
        emit(next, false);
        i += 2;
      }
      continue;
    }
    run += c;
    i++;
  }
  if (run) emit(run, true);
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and backslash-newline are escapes. */
export function decodeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes the body of `$'...'` the way bash does. */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const n = body[++i]!;
    const simple = SIMPLE_ESCAPES[n];
    if (simple !== undefined) {
      out += simple;
    } else if (n >= '0' && n <= '7') {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out += String.fromCharCode(Number.parseInt(m, 8) & 0xff);
      i += m.length - 1;
    } else if (n === 'x') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1));
      if (m) {
        out += String.fromCharCode(Number.parseInt(m[0], 16));
        i += m[0].length;
      } else out += '\\x';
    } else if (n === 'u' || n === 'U') {
      const m = (n === 'u' ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(body.slice(i + 1));
      if (m) {
        const cp = Number.parseInt(m[0], 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
        i += m[0].length;
      } else out += '\\' + n;
    } else if (n === 'c' && i + 1 < body.length) {
      out += String.fromCharCode(body.charCodeAt(++i) & 0x1f);
    } else {
      out += '\\' + n;
    }
  }
  return out;
}
