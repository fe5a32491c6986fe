/**
 * What the policy knows about tools it has not seen as objects: Claude Code's tool names, the
 * shape of their input (the fields a decision reads), and what a call of them touches.
 * A request for a known tool whose input does not have that shape is denied; unknown tools
 * are not read-only, so they ask unless a rule says otherwise.
 */
export type ToolClass =
  /** Runs a shell command line (facts from the Bash classifier). */
  | 'shell'
  /** Reads one path. */
  | 'read'
  /** Searches under a path (Glob, Grep). */
  | 'search'
  /** Writes one path. */
  | 'edit'
  /** Fetches a URL. */
  | 'fetch'
  /** Talks to the network otherwise (WebSearch). */
  | 'network'
  /** Starts a subagent (its own calls are checked separately). */
  | 'agent'
  /** Only changes the agent's own state (todo lists, plan mode, questions to the user). */
  | 'harmless'
  /** Stops a process the agent started. */
  | 'kill'
  /** Runs code inside an isolate with no access to the host. */
  | 'isolated'
  | 'unknown';

/**
 * The type of one input field, `?` when it may be missing: `path` is a non-empty string,
 * `nonnegative` a number >= 0. No zod here: a hook process checks one input and exits, and
 * building zod schemas would cost it more than the whole decision (the messages are zod's,
 * and test/policy/tools.test.ts holds the two to the same answers).
 */
export type FieldType = `${'string' | 'path' | 'number' | 'nonnegative' | 'boolean' | 'array'}${'' | '?'}`;
export type InputShape = Readonly<Record<string, FieldType>>;

export interface ToolInfo {
  readonly class: ToolClass;
  /** The fields the policy reads; other fields are allowed (agents add their own). */
  readonly input?: InputShape;
  /** The input field holding the path, URL or subagent type the call acts on. */
  readonly target?: string;
}

export const TOOLS: Readonly<Record<string, ToolInfo>> = {
  Bash: {
    class: 'shell',
    input: {
      command: 'string',
      description: 'string?',
      timeout: 'nonnegative?',
      run_in_background: 'boolean?',
      dangerouslyDisableSandbox: 'boolean?',
    },
    target: 'command',
  },
  Read: {
    class: 'read',
    input: { file_path: 'path', offset: 'number?', limit: 'number?' },
    target: 'file_path',
  },
  NotebookRead: { class: 'read', input: { notebook_path: 'path' }, target: 'notebook_path' },
  LS: { class: 'search', input: { path: 'path' }, target: 'path' },
  Glob: {
    class: 'search',
    input: { pattern: 'string', path: 'string?' },
    target: 'path',
  },
  Grep: {
    class: 'search',
    input: { pattern: 'string', path: 'string?' },
    target: 'path',
  },
  Write: { class: 'edit', input: { file_path: 'path', content: 'string' }, target: 'file_path' },
  Edit: {
    class: 'edit',
    input: { file_path: 'path', old_string: 'string', new_string: 'string', replace_all: 'boolean?' },
    target: 'file_path',
  },
  MultiEdit: {
    class: 'edit',
    input: { file_path: 'path', edits: 'array' },
    target: 'file_path',
  },
  NotebookEdit: {
    class: 'edit',
    input: { notebook_path: 'path', new_source: 'string?' },
    target: 'notebook_path',
  },
  WebFetch: {
    class: 'fetch',
    input: { url: 'string', prompt: 'string?' },
    target: 'url',
  },
  WebSearch: { class: 'network', input: { query: 'string' }, target: 'query' },
  Agent: {
    class: 'agent',
    input: { prompt: 'string?', subagent_type: 'string?' },
    target: 'subagent_type',
  },
  Task: {
    class: 'agent',
    input: { prompt: 'string?', subagent_type: 'string?' },
    target: 'subagent_type',
  },
  TodoWrite: { class: 'harmless' },
  TodoRead: { class: 'harmless' },
  AskUserQuestion: { class: 'harmless' },
  ExitPlanMode: { class: 'harmless' },
  EnterPlanMode: { class: 'harmless' },
  BashOutput: { class: 'harmless' },
  TaskOutput: { class: 'harmless' },
  ToolSearch: { class: 'harmless' },
  ListMcpResources: { class: 'harmless' },
  ReadMcpResource: { class: 'harmless' },
  LSP: { class: 'harmless' },
  KillShell: { class: 'kill' },
  KillBash: { class: 'kill' },
  TaskStop: { class: 'kill' },
  JavaScript: { class: 'isolated', input: { code: 'string' }, target: 'code' },
};

export function toolInfo(name: string): ToolInfo {
  return Object.hasOwn(TOOLS, name) ? TOOLS[name]! : { class: 'unknown' };
}

/** Validates the fields the policy reads; returns a message for the model when they are wrong. */
export function checkInput(name: string, input: unknown): string | undefined {
  const info = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (info?.input === undefined) {
    if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) {
      return `input of ${name} must be a JSON object`;
    }
    return undefined;
  }
  if (inputValid(info.input, input)) return undefined;
  const issues = inputIssues(info.input, input);
  if (issues.length === 0) return undefined;
  return `input does not match the ${name} tool's schema: ${issues.join('; ')}`;
}

/**
 * Whether inputIssues(shape, input) is empty, without building it: every decision checks its
 * input, and nearly every input is valid (replay checks every record's).
 */
export function inputValid(shape: InputShape, input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  for (const field in shape) {
    const type = shape[field]!;
    const value = (input as Record<string, unknown>)[field];
    const optional = type.endsWith('?');
    if (value === undefined && optional) continue;
    if (!fieldValid(optional ? type.slice(0, -1) : type, value)) return false;
  }
  return true;
}

/** fieldIssues(type, value) is empty. */
function fieldValid(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'path':
      return typeof value === 'string' && value.length >= 1;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'nonnegative':
      return typeof value === 'number' && Number.isFinite(value) && value >= 0;
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return Array.isArray(value);
  }
}

/** What is wrong with `input` under `shape`, in zod's words and order (fields in shape order). */
export function inputIssues(shape: InputShape, input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return [`input: Invalid input: expected object, received ${received(input)}`];
  const issues: string[] = [];
  for (const [field, type] of Object.entries(shape)) {
    const value = (input as Record<string, unknown>)[field];
    const optional = type.endsWith('?');
    if (value === undefined && optional) continue;
    for (const problem of fieldIssues(optional ? type.slice(0, -1) : type, value))
      issues.push(`${field}: ${problem}`);
  }
  return issues;
}

function fieldIssues(type: string, value: unknown): string[] {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? [] : [expected('string', value)];
    case 'path': {
      const out = typeof value === 'string' ? [] : [expected('string', value)];
      // zod checks the length of anything that has one, even after the type did not match.
      const length =
        value === null || value === undefined ? undefined : (value as { length?: unknown }).length;
      if (length !== undefined && !atLeastOne(length)) out.push('must not be empty');
      return out;
    }
    case 'number':
    case 'nonnegative':
      if (typeof value !== 'number' || !Number.isFinite(value)) return [expected('number', value)];
      return type === 'nonnegative' && value < 0 ? ['Too small: expected number to be >=0'] : [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [expected('boolean', value)];
    default:
      return Array.isArray(value) ? [] : [expected('array', value)];
  }
}

/**
 * `length >= 1` as zod computes it, coercing as JavaScript does; a length that cannot be
 * coerced (an object whose toString is not a function) throws in zod itself. Here that is
 * "too short": the input is refused with a message instead of the check crashing.
 */
function atLeastOne(length: unknown): boolean {
  try {
    return (length as number) >= 1;
  } catch {
    return false;
  }
}

function expected(type: string, value: unknown): string {
  return `Invalid input: expected ${type}, received ${received(value)}`;
}

/** How zod names the type of a value it refused. */
function received(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Object.getPrototypeOf(value) !== Object.prototype && 'constructor' in value && value.constructor)
    return (value.constructor as { name: string }).name;
  return 'object';
}
