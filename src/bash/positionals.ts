import { isDynamic, type Word } from './word.js';

/**
 * The words `set ARGS` makes the positional parameters ($1, $2, ... "$@"), or undefined when it
 * leaves them alone. Options come first (`-e`, `+x`, `-o NAME`); the first other word, or
 * whatever follows `--` or `-`, are the new parameters (`set --` alone clears them).
 */
export function setOperands(args: readonly Word[]): readonly Word[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    // `set $x` could be options or parameters; either way the parameters may change.
    if (isDynamic(w)) return args.slice(i);
    if (v === '--' || v === '-') return args.slice(i + 1);
    if (v === '-o' || v === '+o') {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(v)) continue;
    return args.slice(i);
  }
  return undefined;
}
