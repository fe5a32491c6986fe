import fs from 'node:fs';
import { parseRule, RuleError, type RuleKind } from '../policy/rule.js';

/**
 * `toolgate init` in a project that already has Claude Code permission rules: the rules are
 * carried into the new toolgate policy file, in the same syntax, so that toolgate decides as
 * Claude Code did there (without them, every call the person had allowed would ask again: a
 * hook's ask overrides a settings allow). They come with the repository, so they are not
 * trusted for the person: deny and ask apply at once, allow only once `toolgate trust` records
 * the file. A rule toolgate cannot read is carried as a comment with the reason, never as a
 * rule that would make the whole policy fail to load.
 */
export interface CarriedRules {
  /** YAML: a comment and a `permissions:` block, or comments only. */
  readonly yaml: string;
  readonly counts: Readonly<Record<RuleKind, number>>;
  /** Rules left out, each with why. */
  readonly refused: readonly string[];
}

const KINDS: readonly RuleKind[] = ['deny', 'ask', 'allow'];

/**
 * The rules in `file` (a Claude Code settings file, named `shownAs` in the comment), undefined
 * when it has none; `{ problem }` when it exists but cannot be read as settings.
 */
export function carriedRules(file: string, shownAs: string): CarriedRules | undefined | { problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { problem: `${shownAs} cannot be read (${(err as Error).message})` };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (err) {
    return { problem: `${shownAs} is not valid JSON (${(err as Error).message})` };
  }
  const permissions = (settings as { permissions?: unknown } | null)?.permissions;
  if (permissions === undefined) return undefined;
  if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions))
    return { problem: `${shownAs}: "permissions" is not an object` };
  const counts: Record<RuleKind, number> = { deny: 0, ask: 0, allow: 0 };
  const refused: string[] = [];
  const lists: string[] = [];
  for (const kind of KINDS) {
    const list = (permissions as Record<string, unknown>)[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      refused.push(`permissions.${kind} is not a list`);
      continue;
    }
    const lines: string[] = [];
    for (const rule of list) {
      const why = unreadable(rule, kind);
      if (why !== undefined) {
        refused.push(`${kind} ${JSON.stringify(rule)}: ${why}`);
        continue;
      }
      lines.push(`    - ${JSON.stringify(rule)}`);
      counts[kind]++;
    }
    if (lines.length > 0) lists.push(`  ${kind}:`, ...lines);
  }
  if (lists.length === 0 && refused.length === 0) return undefined;
  const yaml = [
    `# Carried over from ${shownAs} by toolgate init, so that toolgate decides as Claude Code`,
    '# did there. Deny and ask apply at once; allow once you trust this file (read it, then',
    '# `toolgate trust`), because it comes with the repository.',
    ...refused.map((r) => `# left out: ${r}`),
    ...(lists.length > 0 ? ['permissions:', ...lists] : []),
    '',
  ].join('\n');
  return { yaml, counts, refused };
}

function unreadable(rule: unknown, kind: RuleKind): string | undefined {
  if (typeof rule !== 'string') return 'not a string';
  try {
    parseRule(rule, kind);
    return undefined;
  } catch (err) {
    if (err instanceof RuleError) return err.message;
    throw err;
  }
}
