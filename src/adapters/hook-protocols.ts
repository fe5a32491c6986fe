import { CLAUDE_PROTOCOLS } from './claude-hook.js';
import type { HookProtocol } from './hook-protocol.js';

/**
 * Every hook protocol `toolgate hook` and `serve`'s /hook answer, tried in order; a payload none
 * recognises is blocked. Another agent's adapter (Gemini CLI, Codex, Cursor, ...) adds its entry
 * here, with a `recognises` that cannot take another agent's payload for its own.
 */
export const HOOK_PROTOCOLS: readonly HookProtocol[] = [...CLAUDE_PROTOCOLS];
