import { hookOutput, parseHookInput } from '../adapters/claude-hook.js';
import { nodeFileSystem } from '../policy/fs-view.js';
import type { PolicyCache } from '../policy/parse-cache.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { classifierFor, logFor, modeOf, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';
import { Reexecuted } from './reexec.js';
import { readStdin, writeStdout } from './stdio.js';

const HELP = `usage: toolgate hook [--policy F]... [--log FILE [--log-key KEY]] [--warm]

A Claude Code PreToolUse hook: reads the hook JSON on stdin, decides with the policy, and
writes {"hookSpecificOutput": {"permissionDecision": "allow"|"deny"|"ask", ...}} on stdout.
On any error (bad input, a broken policy, a crash) it exits 2 with the reason on stderr, which
Claude Code treats as "block": it never fails open. Other hook events get no opinion (exit 0).

--warm hands each call to a warm toolgate process of the same build (started by the first
call, it exits after 15 idle minutes), which answers as this process would: node still starts
per call, but nothing else loads. Without one, or if it fails, the call is decided here.

In .claude/settings.json:
  {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolgate hook --warm"}]}]}}
`;

/** Claude Code reads exit 2 as "block the call"; every other failure would let it proceed. */
export const BLOCK = 2;
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export interface HookOptions {
  /** Parsed policy files kept between calls (the bundled command passes one; see parse-cache.ts). */
  readonly policyCache?: PolicyCache;
}

export async function hookCommand(argv: string[], io: CliIO, options: HookOptions = {}): Promise<number> {
  try {
    const { values } = parseCliArgs(argv, {
      ...POLICY_OPTIONS,
      // main.js acts on it before this runs (warm-client.ts); here it only has to be accepted
      warm: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const text = await readStdin(io, MAX_INPUT_BYTES, 'hook input');
    const parsed = parseHookInput(text);
    if (!parsed.ok) return block(io, parsed.error);
    if (parsed.event === 'other') return 0;
    const policy = await policyFor(
      { ...values, cwd: values.cwd ?? parsed.request.cwd },
      io,
      text,
      options.policyCache,
    );
    const { decideWithClassifier } = await import('../policy/auto.js');
    const classifier = await classifierFor(policy, io);
    // --mode overrides the mode Claude Code reports (e.g. to force dontAsk in CI).
    const forced = modeOf(values.mode);
    const request = forced ? { ...parsed.request, mode: forced } : parsed.request;
    let decision: Awaited<ReturnType<typeof decideWithClassifier>>;
    try {
      decision = await decideWithClassifier(request, policy, {
        // a view of this call's own: no path resolved for an earlier call (a warm process decides many)
        fs: nodeFileSystem(),
        ...(classifier ? { classifier } : {}),
      });
    } finally {
      policy.conditions?.dispose?.();
    }
    const log = await logFor(values, io, request.cwd);
    if (log) {
      try {
        await log.append({ request, decision });
      } finally {
        await log.close();
      }
    }
    writeStdout(io, `${JSON.stringify(hookOutput(decision))}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Reexecuted) return err.code;
    return block(
      io,
      err instanceof PolicyLoadFailed
        ? err.message
        : `internal error: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

function block(io: CliIO, reason: string): number {
  io.stderr.write(`toolgate hook: ${reason}\n`);
  return BLOCK;
}
