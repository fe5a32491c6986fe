/**
 * Codex CLI's PreToolUse payload is shaped like Claude Code's (hook_event_name "PreToolUse",
 * tool_name, tool_input, permission_mode, tool_use_id); it also carries `turn_id` and `model`,
 * which Claude Code's does not (checked on the payloads Claude Code 2.1.197 and 2.1.332 send:
 * test/fixtures/hook-payloads). Either field makes it Codex's, so that both adapters' `recognises`
 * are disjoint and the order of HOOK_PROTOCOLS cannot decide between them. Read the wrong way
 * round, Codex's payload would be fatal: its `permission_mode: "bypassPermissions"` (sent in
 * every `codex exec` run) would be honoured, and an ask (which Codex runs without a prompt)
 * answered as Claude Code's ask.
 */
export function codexShaped(p: Readonly<Record<string, unknown>>): boolean {
  return p.turn_id !== undefined || p.model !== undefined;
}
