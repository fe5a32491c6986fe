import { z } from 'zod';

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

export interface ToolInfo {
  readonly class: ToolClass;
  /** The fields the policy reads; other fields are allowed (agents add their own). */
  readonly input?: z.ZodType;
  /** The input field holding the path, URL or subagent type the call acts on. */
  readonly target?: string;
}

const path = z.string().min(1, 'must not be empty');
const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

export const TOOLS: Readonly<Record<string, ToolInfo>> = {
  Bash: {
    class: 'shell',
    input: loose({
      command: z.string(),
      description: z.string().optional(),
      timeout: z.number().nonnegative().optional(),
      run_in_background: z.boolean().optional(),
      dangerouslyDisableSandbox: z.boolean().optional(),
    }),
    target: 'command',
  },
  Read: {
    class: 'read',
    input: loose({ file_path: path, offset: z.number().optional(), limit: z.number().optional() }),
    target: 'file_path',
  },
  NotebookRead: { class: 'read', input: loose({ notebook_path: path }), target: 'notebook_path' },
  LS: { class: 'search', input: loose({ path }), target: 'path' },
  Glob: {
    class: 'search',
    input: loose({ pattern: z.string(), path: z.string().optional() }),
    target: 'path',
  },
  Grep: {
    class: 'search',
    input: loose({ pattern: z.string(), path: z.string().optional() }),
    target: 'path',
  },
  Write: { class: 'edit', input: loose({ file_path: path, content: z.string() }), target: 'file_path' },
  Edit: {
    class: 'edit',
    input: loose({
      file_path: path,
      old_string: z.string(),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    target: 'file_path',
  },
  MultiEdit: {
    class: 'edit',
    input: loose({ file_path: path, edits: z.array(z.unknown()) }),
    target: 'file_path',
  },
  NotebookEdit: {
    class: 'edit',
    input: loose({ notebook_path: path, new_source: z.string().optional() }),
    target: 'notebook_path',
  },
  WebFetch: {
    class: 'fetch',
    input: loose({ url: z.string(), prompt: z.string().optional() }),
    target: 'url',
  },
  WebSearch: { class: 'network', input: loose({ query: z.string() }), target: 'query' },
  Agent: {
    class: 'agent',
    input: loose({ prompt: z.string().optional(), subagent_type: z.string().optional() }),
    target: 'subagent_type',
  },
  Task: {
    class: 'agent',
    input: loose({ prompt: z.string().optional(), subagent_type: z.string().optional() }),
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
  JavaScript: { class: 'isolated', input: loose({ code: z.string() }), target: 'code' },
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
  const parsed = info.input.safeParse(input);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues.map(
    (i) => `${i.path.length > 0 ? i.path.join('.') : 'input'}: ${i.message}`,
  );
  return `input does not match the ${name} tool's schema: ${issues.join('; ')}`;
}
