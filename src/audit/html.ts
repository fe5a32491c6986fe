import { visible } from './subject.js';

/**
 * Text for HTML, in element content and in quoted attribute values alike: the five characters
 * that can end a text or an attribute are escaped, and invisible or control characters are
 * shown as `\u{…}` (so a command cannot hide part of itself, or reorder how it reads). Every
 * string that comes from a log goes through here: it is the agent's text, and attacker-
 * controlled.
 */
export function esc(text: string | number): string {
  return visible(String(text)).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
