/** The permission modes, in Claude Code's spelling. */
export const MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions'] as const;
export type Mode = (typeof MODES)[number];

const ALIASES: Readonly<Record<string, Mode>> = {
  bypass: 'bypassPermissions',
  // Claude Code labels default mode "Manual" in its UI and accepts `manual` as an alias.
  manual: 'default',
};

/** Reads a mode as a person or another tool may spell it; undefined when it is not a mode. */
export function parseMode(text: string): Mode | undefined {
  if ((MODES as readonly string[]).includes(text)) return text as Mode;
  return Object.hasOwn(ALIASES, text) ? ALIASES[text] : undefined;
}
