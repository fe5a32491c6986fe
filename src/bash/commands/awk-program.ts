/**
 * What an awk program does beyond printing: `system(cmd)`, `cmd | getline`, `print | cmd` and
 * gawk's `|&` run shell commands; `print > file` and `>>` write files; `getline < file` reads.
 * A token scanner (strings, regex literals, comments, parentheses) tells a redirection inside
 * a print statement from a comparison, and fails closed when unsure.
 */
export interface AwkFindings {
  /** Shell commands run, when written as one string literal; '' when built at run time. */
  readonly runs: string[];
  /** Files written, as literals; '' when the name is built at run time. */
  readonly writes: string[];
  readonly reads: string[];
  /** gawk's network special files (`/inet/tcp/0/host/port`) read from or written to. */
  readonly network: string[];
  problem?: string;
}

type Token =
  | { t: 'str'; v: string }
  | { t: 'regex' }
  | { t: 'name'; v: string }
  | { t: 'num' }
  | { t: 'op'; v: string }
  | { t: 'nl' };

const EXEMPT_FILES = new Set(['/dev/stdout', '/dev/stderr', '/dev/null', '-']);

export function scanAwkProgram(program: string): AwkFindings {
  const out: AwkFindings = { runs: [], writes: [], reads: [], network: [] };
  let tokens: Token[];
  try {
    tokens = tokenize(program);
  } catch (e) {
    out.problem = e instanceof Error ? e.message : String(e);
    return out;
  }
  // Statement state: inside print/printf, at which paren depth it started.
  let printDepth: number | undefined;
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]!;
    const next = tokens[k + 1];
    const prev = tokens[k - 1];
    if (tok.t === 'name') {
      if (tok.v === 'system' && next?.t === 'op' && next.v === '(') {
        out.runs.push(literalCall(tokens, k + 1));
      } else if (tok.v === 'print' || tok.v === 'printf') {
        printDepth = depth;
      } else if (tok.v === 'getline' && redirectAfterGetline(tokens, k) !== undefined) {
        // `getline < FILE` or `getline VAR < FILE`.
        const target = tokens[redirectAfterGetline(tokens, k)! + 1];
        const file = target?.t === 'str' ? target.v : '';
        if (isInet(file)) out.network.push(file);
        else out.reads.push(file);
      } else if (tok.v === '@include' || tok.v === '@load' || tok.v === '@namespace') {
        out.problem = `awk ${tok.v} loads code from elsewhere`;
      } else if (tok.v.startsWith('@') && next?.t === 'op' && next.v === '(') {
        // gawk's indirect call: `@f(...)` calls the function whose name is in f, `system` included.
        out.runs.push('');
      }
      continue;
    }
    if (tok.t === 'nl') {
      printDepth = undefined;
      continue;
    }
    if (tok.t !== 'op') continue;
    switch (tok.v) {
      case '(':
        depth++;
        break;
      case ')':
        depth--;
        break;
      case ';':
      case '{':
      case '}':
        printDepth = undefined;
        break;
      case '|':
      case '|&': {
        if (next?.t === 'name' && next.v === 'getline') {
          // `"cmd" | getline`: the command is the expression before the pipe (gawk's
          // `"/inet/..." |& getline` is a connection).
          const cmd = prev?.t === 'str' && !isConcatenated(tokens, k - 1) ? prev.v : '';
          if (isInet(cmd)) out.network.push(cmd);
          else out.runs.push(cmd);
        } else if (printDepth !== undefined && depth === printDepth) {
          out.runs.push(next?.t === 'str' && !continues(tokens, k + 1) ? next.v : '');
        } else {
          out.problem = 'awk pipe "|" outside a print statement is not understood';
        }
        break;
      }
      case '>':
      case '>>':
        if (printDepth !== undefined && depth === printDepth) {
          const target = next?.t === 'str' && !continues(tokens, k + 1) ? next.v : '';
          if (isInet(target)) out.network.push(target);
          else if (!EXEMPT_FILES.has(target)) out.writes.push(target);
        }
        break;
    }
  }
  return out;
}

/** The index of the `<` of `getline < FILE` or `getline VAR < FILE` (getline at k). */
function redirectAfterGetline(tokens: Token[], k: number): number | undefined {
  let j = k + 1;
  if (tokens[j]?.t === 'name') j++;
  const op = tokens[j];
  return op?.t === 'op' && op.v === '<' ? j : undefined;
}

/** gawk opens a connection for a file named `/inet/...` (`/inet4/`, `/inet6/`). */
function isInet(file: string): boolean {
  return /^\/inet[46]?\//.test(file);
}

/** `system("cmd")`: the literal when the argument is exactly one string. */
function literalCall(tokens: Token[], open: number): string {
  const arg = tokens[open + 1];
  const close = tokens[open + 2];
  if (arg?.t === 'str' && close?.t === 'op' && close.v === ')') return arg.v;
  return '';
}

/** Whether the string at index k is followed by more of the same expression (concatenation). */
function continues(tokens: Token[], k: number): boolean {
  const after = tokens[k + 1];
  if (after === undefined || after.t === 'nl') return false;
  if (after.t === 'op') return !['}', ';', ')', ','].includes(after.v);
  return true;
}

function isConcatenated(tokens: Token[], k: number): boolean {
  const before = tokens[k - 1];
  if (before === undefined || before.t === 'nl') return false;
  if (before.t === 'op') return !['{', ';', '(', ',', '}'].includes(before.v);
  return before.t === 'str' || before.t === 'name' || before.t === 'num';
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (last === undefined || last.t === 'nl') return true;
    // After `x++` or `x--` a slash divides: a prefix ++ or -- is never followed by one.
    if (last.t === 'op') return ![')', ']', '$', '++', '--'].includes(last.v);
    if (last.t === 'name') return ['print', 'printf', 'return', 'in', 'getline'].includes(last.v);
    return false;
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\n') {
      tokens.push({ t: 'nl' });
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      let v = '';
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\') {
          const n = src[i + 1];
          v += n === 'n' ? '\n' : n === 't' ? '\t' : (n ?? '');
          i += 2;
        } else v += src[i++];
      }
      if (i >= src.length) throw new Error('awk: unterminated string');
      i++;
      tokens.push({ t: 'str', v });
      continue;
    }
    if (c === '/' && regexAllowed()) {
      i++;
      let bracket = false;
      while (i < src.length && (bracket || src[i] !== '/')) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') bracket = true;
        else if (src[i] === ']') bracket = false;
        else if (src[i] === '\n') throw new Error('awk: unterminated regular expression');
        i++;
      }
      if (i >= src.length) throw new Error('awk: unterminated regular expression');
      i++;
      tokens.push({ t: 'regex' });
      continue;
    }
    if (/[A-Za-z_@]/.test(c)) {
      const m = /^@?[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      tokens.push({ t: 'name', v: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const m = /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?|^[0-9]+/.exec(src.slice(i));
      if (m && m[0].length > 0) {
        tokens.push({ t: 'num' });
        i += m[0].length;
        continue;
      }
    }
    const two = src.slice(i, i + 2);
    if (
      [
        '|&',
        '>>',
        '>=',
        '<=',
        '==',
        '!=',
        '&&',
        '||',
        '++',
        '--',
        '+=',
        '-=',
        '*=',
        '/=',
        '%=',
        '^=',
      ].includes(two)
    ) {
      tokens.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    tokens.push({ t: 'op', v: c });
    i++;
  }
  return tokens;
}
