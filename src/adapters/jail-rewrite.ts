/**
 * Enforcement through an agent's hook: an allowed or asked Bash call is answered with its input
 * rewritten so that the agent runs `toolgate jail ... -- '<the original command>'` instead. The
 * jail decides the line again and runs it in the profile of that decision, so the agent's own
 * shell executes nothing of the model's line but the quoted word.
 *
 * The original must arrive byte for byte: it is put in one single-quoted word, where bash
 * gives every character its literal meaning, and each `'` in it becomes `'\''` (close, an
 * escaped quote, reopen). Newlines, heredocs, `$`, backslashes and anything else pass as they
 * are. Two things cannot: a NUL (no shell word holds one) and a lone UTF-16 surrogate (no
 * UTF-8 byte sequence is one); such a command is refused rather than changed.
 */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface JailInvocation {
  /** The program and its leading arguments that start toolgate (node, its flags, main.js). */
  readonly toolgate: readonly string[];
  /** Policy files given to the hook, absolute: the jail must decide under the same policy. */
  readonly policies: readonly string[];
  readonly cwd: string;
  /** The mode the hook decided under; the jail decides under it too. */
  readonly mode?: string;
  /**
   * The hook's decision log and signing key, absolute: toolgate's own files, which the jail holds
   * read-only (it does not write to the log; the hook has recorded the decision).
   */
  readonly log?: string;
  readonly logKey?: string;
}

export type Rewrite = { ok: true; input: Record<string, unknown> } | { ok: false; reason: string };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The Bash input with `command` replaced by its jailed form; every other field kept as it is. */
export function jailRewrite(input: unknown, jail: JailInvocation): Rewrite {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return { ok: false, reason: 'the Bash input is not an object' };
  const command = (input as { command?: unknown }).command;
  if (typeof command !== 'string' || command.trim() === '')
    return { ok: false, reason: 'the Bash input has no command' };
  if (command.includes('\0')) return { ok: false, reason: 'the command contains a NUL byte' };
  if (LONE_SURROGATE.test(command))
    return { ok: false, reason: 'the command contains text that has no UTF-8 form (a lone surrogate)' };
  const words = [
    ...jail.toolgate,
    'jail',
    ...jail.policies.flatMap((p) => ['--policy', p]),
    '--cwd',
    jail.cwd,
    ...(jail.mode ? ['--mode', jail.mode] : []),
    ...(jail.log ? ['--log', jail.log] : []),
    ...(jail.log && jail.logKey ? ['--log-key', jail.logKey] : []),
    '--',
  ];
  return {
    ok: true,
    input: {
      ...(input as Record<string, unknown>),
      command: `${words.map(shellQuote).join(' ')} ${shellQuote(command)}`,
    },
  };
}
