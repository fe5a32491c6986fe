import type { BashPart } from '../bash-parts.js';
import {
  bashRuleHit,
  bashRuleMayHit,
  domainRuleHit,
  type MatchContext,
  pathRuleHit,
  type RuleHit,
  readRuleTester,
  toolRuleHit,
} from '../rule-match.js';
import type { BashLine, Verdict } from './subject.js';
import { guardVerdict, ruleVerdict } from './verdict.js';

/** How many files and directories below a recursively read directory are checked, at most. */
export const TREE_LIMIT = 20_000;

/** A Bash rule on the call's parameters (not its command): `Bash(timeout:...)` and the like. */
export function lineParamRule(kind: 'deny' | 'ask'): (l: BashLine) => Verdict | undefined {
  return (l) => {
    const hit = toolRuleHit(kind, 'Bash', l.ctx.condition.input, l.ctx, { paramsOnly: true });
    return hit ? ruleVerdict(kind, hit, 'this Bash call') : undefined;
  };
}

/** A deny or ask rule for one part: its Bash pattern, or a path or domain rule on what it touches. */
export function partRule(kind: 'deny' | 'ask'): (p: BashPart, l: BashLine) => Verdict | undefined {
  return (part, l) => {
    const hit = partRuleHit(kind, part, l.ctx);
    return hit ? ruleVerdict(kind, hit, hit.target ?? part.display) : undefined;
  };
}

function partRuleHit(kind: 'deny' | 'ask', part: BashPart, ctx: MatchContext): RuleHit | undefined {
  for (let i = 0; i < part.denyTexts.length; i++) {
    const form = { words: part.denyWords[i]!, all: part.words };
    const hit = bashRuleHit(kind, part.denyTexts[i], ctx, { form });
    if (hit) return hit;
  }
  for (const r of part.reads)
    for (const p of r.paths ?? []) {
      const h = pathRuleHit(kind, 'read', p, ctx);
      if (h) return { ...h, target: `${part.display} (reads ${p})` };
    }
  for (const w of [...part.writes, ...part.removes])
    for (const p of w.paths ?? []) {
      const h = pathRuleHit(kind, 'edit', p, ctx);
      if (h) return { ...h, target: `${part.display} (writes ${p})` };
    }
  // `grep -r x .` reads .env if there is one: every file below is a read of its own.
  if (part.readTrees.length > 0 && ctx.policy.pathRules.read[kind].length > 0) {
    const test = readRuleTester(kind, ctx);
    for (const t of part.readTrees)
      for (const root of t.paths ?? []) {
        const realRoot = ctx.fs.realpath(root);
        // A link's target is resolved whole: it may lead anywhere, including into a tree already seen.
        for (const e of ctx.fs.walk?.(root, t.how, TREE_LIMIT) ?? []) {
          const real = e.link ? ctx.fs.realpath(e.path) : realRoot + e.path.slice(root.length);
          const h = test(e.path, real);
          if (h) return { ...h, target: `${part.display} (reads ${e.path}, below ${root})` };
        }
      }
  }
  for (const host of part.hosts)
    for (const name of host.names ?? []) {
      const h = domainRuleHit(kind, name, ctx);
      if (h) return { ...h, target: `${part.display} (connects to ${name})` };
    }
  return undefined;
}

/**
 * A deny or ask rule that words only known at run time could complete (`git p$X`, `git
 * $(echo push)`) answers as the rule would: the word may be the one it names, and what is only
 * known at run time cannot be shown not to be. Code only known at run time (`$cmd`, `eval
 * "$X"`, `bash -c "$CMD"`, `echo 'git push' | bash`) may be any command, so every Bash rule may
 * match it. A guard: no allow rule or mode lifts it, and the reason names the rule.
 */
export function partMayHit(kind: 'deny' | 'ask'): (p: BashPart, l: BashLine) => Verdict | undefined {
  const rule = kind === 'deny' ? 'Deny' : 'Ask';
  return (part, { ctx }) => {
    // A host only known at run time may be the one a WebFetch(domain:...) rule names.
    const host = part.hosts.find((h) => h.names === undefined);
    const domainHit = host && domainRuleHit(kind, undefined, ctx);
    if (host && domainHit) {
      const reason = `${rule} rule "${domainHit.rule.rule.text}" may match ${part.display}: it connects to "${host.raw}", a host only known at run time`;
      return guardVerdict(kind, reason, domainHit);
    }
    const hidden = part.report.unknownCode[0];
    if (part.dynamicName || hidden !== undefined) {
      const hit = bashRuleMayHit(kind, '', part.denyText, ctx);
      if (!hit) return undefined;
      const why = hidden ?? `the command name is only known at run time`;
      return guardVerdict(
        kind,
        `${rule} rule "${hit.rule.rule.text}" may match ${part.display}: ${why}`,
        hit,
      );
    }
    for (const prefix of part.denyPrefixes) {
      const hit = bashRuleMayHit(kind, prefix, part.denyText, ctx);
      if (!hit) continue;
      const reason = `${rule} rule "${hit.rule.rule.text}" may match ${part.display}: part of it is only known at run time`;
      return guardVerdict(kind, reason, hit);
    }
    return undefined;
  };
}
