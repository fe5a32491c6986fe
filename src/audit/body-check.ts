/**
 * Whether a record body (a record before the chain gives it seq, ts, prev and hash) is
 * well-formed format v1: RecordSchema's rules for those members, checked by hand so that
 * writing a record does not load zod (20 ms of a hook process's life). A property test holds
 * this check and the schema to the same verdicts.
 */
import { DECIDERS } from '../policy/decision.js';
import { MODES } from '../policy/mode.js';
import { FORMAT_VERSION } from './format.js';

const BEHAVIORS: ReadonlySet<unknown> = new Set(['allow', 'ask', 'deny']);
const DECIDED_BY: ReadonlySet<unknown> = new Set(DECIDERS);
const MODE_NAMES: ReadonlySet<unknown> = new Set(MODES);
const SENT: ReadonlySet<unknown> = new Set(['allow', 'ask', 'deny', 'none']);
/** zod's uuid: RFC 9562 versions 1-8 with the RFC variant, or the nil and max uuids. */
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

type Shape = Readonly<Record<string, (value: unknown) => string | undefined>>;

const string = (v: unknown) => (typeof v === 'string' ? undefined : 'expected a string');
const boolean = (v: unknown) => (typeof v === 'boolean' ? undefined : 'expected a boolean');
const optional =
  (check: (v: unknown) => string | undefined) =>
  (v: unknown): string | undefined =>
    v === undefined ? undefined : check(v);
const oneOf =
  (set: ReadonlySet<unknown>, what: string) =>
  (v: unknown): string | undefined =>
    set.has(v) ? undefined : `not a known ${what}`;
const strings = (v: unknown) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'expected a list of strings';

function strict(shape: Shape): (value: unknown) => string | undefined {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected an object';
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) if (!Object.hasOwn(shape, key)) return `${key}: not a v1 member`;
    for (const [key, check] of Object.entries(shape)) {
      const problem = check(obj[key]);
      if (problem !== undefined) return `${key}${problem.includes(': ') ? '.' : ': '}${problem}`;
    }
    return undefined;
  };
}

/** JSON data as zod's z.json() takes it: null, booleans, finite numbers, strings, arrays, plain objects. */
function json(v: unknown): string | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : 'not JSON data';
  if (Array.isArray(v)) {
    for (const item of v) if (json(item) !== undefined) return 'not JSON data';
    return undefined;
  }
  if (typeof v === 'object') {
    for (const item of Object.values(v)) if (json(item) !== undefined) return 'not JSON data';
    return undefined;
  }
  return 'not JSON data';
}

const BODY = strict({
  v: (v) => (v === FORMAT_VERSION ? undefined : `expected ${FORMAT_VERSION}`),
  id: (v) => (typeof v === 'string' && UUID.test(v) ? undefined : 'expected a uuid'),
  sessionId: optional(string),
  agentId: optional(string),
  agent: optional(strict({ name: string, version: optional(string) })),
  sent: optional(
    strict({
      answer: oneOf(SENT, 'sent answer'),
      jailed: optional((v) => (v === true ? undefined : 'expected true')),
    }),
  ),
  request: strict({
    tool: string,
    input: json,
    cwd: string,
    mode: optional(oneOf(MODE_NAMES, 'mode')),
  }),
  decision: strict({
    behavior: oneOf(BEHAVIORS, 'behavior'),
    decidedBy: oneOf(DECIDED_BY, 'decider'),
    rule: optional(
      strict({
        id: optional(string),
        text: string,
        source: string,
        line: optional((v) => (Number.isSafeInteger(v) ? undefined : 'expected an integer')),
      }),
    ),
    reason: string,
    mode: oneOf(MODE_NAMES, 'mode'),
    facts: strict({
      readOnly: boolean,
      concurrencySafe: boolean,
      destructive: boolean,
      reasons: strings,
    }),
  }),
  policyDigest: string,
  engine: string,
  grammar: string,
  redacted: optional((v) =>
    strings(v) === undefined && (v as unknown[]).length > 0
      ? undefined
      : 'expected a non-empty list of strings',
  ),
});

/** What is wrong with a record body, or undefined when it is a well-formed v1 body. */
export function bodyProblem(body: unknown): string | undefined {
  return BODY(body);
}
