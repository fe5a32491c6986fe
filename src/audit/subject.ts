import { TOOL_ALIASES } from '../policy/rule.js';
import { toolInfo } from '../policy/tools.js';

/**
 * What a recorded request acts on, as one line for people: the command of a Bash call, the
 * path, URL, query or subagent of other known tools, the input as JSON otherwise. The text is
 * the agent's (attacker-controlled): callers that render it must escape it.
 */
export function subjectOf(tool: string, input: unknown, max = 300): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const target = toolInfo(TOOL_ALIASES[tool] ?? tool).target;
  const value = target === undefined ? undefined : fields[target];
  const text = typeof value === 'string' ? value : (JSON.stringify(input) ?? '');
  return clip(text, max);
}

/** At most `max` characters (code points), with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

/**
 * Control characters, and the invisible characters that reorder or hide text (bidi controls,
 * zero-width ones), shown as `\u{…}` escapes: text from the log can neither drive a terminal
 * (ANSI escapes) nor make a command read as something it is not (Trojan Source), and a line
 * break in a command cannot forge a line of the report.
 */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}
// C0 and C1 controls, DEL, soft hyphen, zero-width and bidi formatting characters, BOM.
const INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
