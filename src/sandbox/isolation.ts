import type { SandboxProfile } from '../policy/obligations.js';
import { type BwrapProbe, probeBwrap } from './bwrap.js';
import { type SandboxError, sandboxError } from './error.js';
import type { OutputCapture } from './output.js';

/** Whether a call runs under bubblewrap, decided from `profile.os` and what the machine has. */
export type Isolation = { use: 'bwrap'; probe: BwrapProbe } | { use: 'none' };

export async function chooseIsolation(
  profile: SandboxProfile,
  bwrapPath: string | undefined,
  notes: string[],
): Promise<Isolation | SandboxError> {
  // The policy chose no isolation: the result's `isolation: 'none'` records it; a note to the
  // model on every call would be noise. `auto` falling back is news, and gets a note below.
  if (profile.os === 'off') return { use: 'none' };
  const probe = await probeBwrap(bwrapPath);
  if (probe.available) return { use: 'bwrap', probe };
  if (profile.os === 'required') {
    return sandboxError(
      'isolation-unavailable',
      `The command was not run: sandbox.os is required (the default), so an allowed command runs inside bubblewrap or not at all, and bubblewrap is not usable here (${probe.reason}). Install bubblewrap (apt install bubblewrap) with user namespaces enabled, or set \`sandbox: { os: off }\` in the policy to run commands without OS isolation (only the checks before the call then hold).`,
    );
  }
  notes.push(`Ran without OS isolation: bubblewrap is not usable here (${probe.reason}).`);
  return { use: 'none' };
}

/**
 * bwrap reports a failed mount or chdir as one line `bwrap: ...` and exit code 1, before the
 * command is ever executed. A command that prints exactly that itself is misread as a setup
 * failure, which only turns its own failure into an error that says so.
 */
export function bwrapSetupFailure(output: OutputCapture): string | undefined {
  const text = output.headText();
  const match = /^bwrap: ([^\n]*)\n?$/.exec(text);
  return match?.[1];
}
