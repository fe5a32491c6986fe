import { lineAcceptEdits, lineDefault, partAllowRule, partDefault } from './bash-grants.js';
import {
  lineNotAnalyzed,
  linePipeToShell,
  linePlanMode,
  partCriticalRemoval,
  partHiddenCode,
  partProtectedWrite,
  partUncheckedTree,
  partUnknownPath,
} from './bash-guards.js';
import { lineParamRule, partMayHit, partRule } from './bash-rules.js';
import type { Verdict } from './subject.js';
import {
  toolAcceptEdits,
  toolDefault,
  toolInputInvalid,
  toolPlanMode,
  toolProtectedWrite,
  toolRule,
} from './tool-steps.js';
import { invalidVerdict } from './verdict.js';
import type { Step } from './walk.js';

const bypass = (): Verdict => ({
  behavior: 'allow',
  by: 'mode',
  reason: 'bypassPermissions mode allows it (no deny or ask rule applies)',
});

/**
 * The decision order, written once (walk.ts is its only reader). Every `restrict` step
 * counts, whatever its place: the strictest answer wins (deny > ask > allow), and on a tie
 * the earlier step gives the reason. What no step restricts is settled by the first `grant`
 * that answers for each subject (a tool call, or each part of a Bash line). Afterwards, an ask
 * is a deny in dontAsk mode and goes to the classifier in auto mode (decide.ts, auto.ts).
 * ARCHITECTURE's "Decision order" is this table's `doc` column (a test checks it).
 */
export const DECISION_ORDER: readonly Step[] = (
  [
    {
      name: 'invalid input',
      doc: "input fails the tool's schema or `validateInput`, an unknown mode, a relative cwd -> deny (decidedBy 'error').",
      kind: 'restrict',
      atMost: 'deny',
      invalid: (c) => invalidVerdict(c.reason),
      tool: toolInputInvalid,
    },
    {
      name: 'deny rules',
      doc: 'a **deny** rule matches (any layer) -> deny. Deny rules hold in every mode.',
      kind: 'restrict',
      atMost: 'deny',
      tool: toolRule('deny'),
      line: lineParamRule('deny'),
      part: partRule('deny'),
    },
    {
      name: 'deny rules that may match',
      doc: 'a deny rule that words only known at run time could complete (`git $x`), or any Bash deny rule for code only known at run time (`$cmd`, `eval "$X"`, `bash -c "$CMD"`, `echo … | sh`), or a WebFetch domain deny rule for a host only known at run time -> deny (a guard; the reason names the rule).',
      kind: 'restrict',
      atMost: 'deny',
      part: partMayHit('deny'),
    },
    {
      name: 'line not analyzed',
      doc: 'guard: a line that cannot be fully analyzed while content or domain rules exist -> ask.',
      kind: 'restrict',
      atMost: 'ask',
      line: lineNotAnalyzed,
    },
    {
      name: 'critical removal',
      doc: 'guard: a command the classifier reports as deleting `/`, a top-level directory, `$HOME`, the workspace root or its parents (`rm -rf /`, `find ~ -delete`, `rsync --delete e/ /`, `mv ~ x`), deleting a tree only known at run time (`rm -rf "$X"`), or overwriting a disk (`dd of=/dev/sda`, `mkfs`) -> ask, or deny where the policy\'s `guards:` says so.',
      kind: 'restrict',
      atMost: 'deny',
      part: partCriticalRemoval,
    },
    {
      name: 'download run as code',
      doc: "guard: a download piped into a shell (`curl x | sh`) -> ask, or deny where the policy's `guards:` says so.",
      kind: 'restrict',
      atMost: 'deny',
      line: linePipeToShell,
    },
    {
      name: 'hidden code',
      doc: 'guard: code the line does not show (`eval "$X"`, `$cmd`) while content or domain rules exist -> ask.',
      kind: 'restrict',
      atMost: 'ask',
      part: partHiddenCode,
    },
    {
      name: 'unchecked tree',
      doc: 'guard: a directory read all the way down with too many files to check against the rules on reads -> ask.',
      kind: 'restrict',
      atMost: 'ask',
      part: partUncheckedTree,
    },
    {
      name: 'unknown path',
      doc: 'guard: a file only known at run time while content rules exist -> ask.',
      kind: 'restrict',
      atMost: 'ask',
      part: partUnknownPath,
    },
    {
      name: 'ask rules',
      doc: 'an **ask** rule matches -> ask.',
      kind: 'restrict',
      atMost: 'ask',
      tool: toolRule('ask'),
      line: lineParamRule('ask'),
      part: partRule('ask'),
    },
    {
      name: 'ask rules that may match',
      doc: 'an ask rule that words only known at run time could complete -> ask (a guard).',
      kind: 'restrict',
      atMost: 'ask',
      part: partMayHit('ask'),
    },
    {
      name: 'plan mode',
      doc: 'in `plan` mode, anything not read-only -> deny.',
      kind: 'restrict',
      atMost: 'deny',
      onlyIn: ['plan'],
      tool: toolPlanMode,
      line: linePlanMode,
    },
    {
      name: 'protected path',
      doc: "guard: writes into protected paths (`.git/hooks`, `.git/config`, shell rc files, `.claude/`, `.toolgate/`, the agents' hook files) and toolgate's own files (its decision log, checkpoint, key, trust store, policy files, program; deleting a directory that holds one too) -> ask in every mode, `bypassPermissions` included (deny where no one can answer: dontAsk).",
      kind: 'restrict',
      atMost: 'ask',
      tool: toolProtectedWrite,
      part: partProtectedWrite,
    },
    {
      name: 'bypass mode',
      doc: 'in `bypassPermissions` mode -> allow.',
      kind: 'grant',
      atMost: 'allow',
      onlyIn: ['bypassPermissions'],
      tool: bypass,
      line: bypass,
    },
    {
      name: 'acceptEdits mode',
      doc: 'in `acceptEdits` mode, file edits inside the workspace -> allow.',
      kind: 'grant',
      atMost: 'allow',
      onlyIn: ['acceptEdits'],
      tool: toolAcceptEdits,
      line: lineAcceptEdits,
    },
    {
      name: 'allow rules',
      doc: 'an **allow** rule matches -> allow.',
      kind: 'grant',
      atMost: 'allow',
      tool: toolRule('allow'),
      part: partAllowRule,
    },
    {
      name: 'default',
      doc: 'read-only inside the workspace -> allow; otherwise ask.',
      kind: 'grant',
      atMost: 'ask',
      tool: toolDefault,
      line: lineDefault,
      part: partDefault,
    },
  ] satisfies Step[]
).map(uniform);

/** Every step with the same fields in the same order: one object shape for the walk to read. */
function uniform(s: Step): Step {
  return {
    name: s.name,
    doc: s.doc,
    kind: s.kind,
    atMost: s.atMost,
    notIn: s.notIn,
    onlyIn: s.onlyIn,
    invalid: s.invalid,
    tool: s.tool,
    line: s.line,
    part: s.part,
  };
}
