/**
 * "Tool(specifier)" strings -> Rule. Claude Code's syntax: `Bash`, `Bash(npm run test *)`,
 * `Read(./src/**)`, `WebFetch(domain:*.github.com)`, `mcp__server__tool`, `Agent(Explore)`,
 * `Tool(param:value)`. One parse, one typed value per kind; matching lives in match/.
 */
export type RuleKind = 'allow' | 'ask' | 'deny';

export type Specifier =
  /** No specifier (or `*`): every call of the tool. */
  | { type: 'any' }
  /** A Bash argv pattern (`npm run test *`, legacy `git diff:*`). */
  | { type: 'bash'; pattern: string }
  /**
   * A path pattern with gitignore semantics, for reads (Read, Glob, Grep) or edits (Edit, Write,
   * NotebookEdit). It applies to every tool that reads or writes that path, Bash included.
   */
  | { type: 'path'; pattern: string; access: 'read' | 'edit' }
  /** `domain:example.com` for WebFetch. */
  | { type: 'domain'; pattern: string }
  /** `Agent(Explore)`: a subagent type. */
  | { type: 'agent'; pattern: string }
  /** `Tool(param:value)`: a top-level scalar input field (deny and ask only). */
  | { type: 'param'; name: string; pattern: string }
  /** Any other specifier, matched against the tool's primary input field as a `*` glob. */
  | { type: 'primary'; pattern: string };

export interface Rule {
  readonly kind: RuleKind;
  /** As written. */
  readonly text: string;
  /** The tool name, or a name pattern (`mcp__github__get_*`, `*`). */
  readonly tool: string;
  /** Whether `tool` contains `*` (deny/ask anywhere; allow only after `mcp__server__`). */
  readonly toolIsPattern: boolean;
  readonly specifier: Specifier;
}

export class RuleError extends Error {
  override name = 'RuleError';
  constructor(
    message: string,
    readonly text: string,
    /** 0-based offset in the rule text where the problem is. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * One tool, two names: Claude Code renamed Task to Agent, and its MCP resource tools are
 * registered as `ListMcpResourcesTool`/`ReadMcpResourceTool` while people write them without
 * the suffix. Rules and requests may use either; a deny on one name holds for the other.
 */
export const TOOL_ALIASES: Readonly<Record<string, string>> = {
  Task: 'Agent',
  ListMcpResourcesTool: 'ListMcpResources',
  ReadMcpResourceTool: 'ReadMcpResource',
};

/** Names come from models and policy authors: never read them through the prototype chain. */
export function canonicalToolName(name: string): string {
  return Object.hasOwn(TOOL_ALIASES, name) ? TOOL_ALIASES[name]! : name;
}

/**
 * Claude Code consults only Read(...) and Edit(...) path rules and ignores Write(...),
 * NotebookEdit(...), MultiEdit(...), Glob(...) and Grep(...) ones. toolgate reads them as the
 * Edit or Read rule they look like, so a deny written that way is not silently dropped; `lint`
 * says that Claude Code itself would ignore them.
 */
export const PATH_ACCESS: Readonly<Record<string, 'read' | 'edit'>> = {
  Read: 'read',
  Glob: 'read',
  Grep: 'read',
  Edit: 'edit',
  Write: 'edit',
  NotebookEdit: 'edit',
  MultiEdit: 'edit',
};

export const IGNORED_BY_CLAUDE_CODE = new Set(['Write', 'NotebookEdit', 'MultiEdit', 'Glob', 'Grep']);

/** Input fields that hold what a tool acts on: a parameter rule on them could be bypassed, so it is refused. */
export const PRIMARY_FIELDS: Readonly<Record<string, string>> = {
  Bash: 'command',
  Read: 'file_path',
  Edit: 'file_path',
  Write: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'pattern',
  Grep: 'pattern',
  WebFetch: 'url',
  WebSearch: 'query',
  Agent: 'subagent_type',
  Skill: 'skill',
};

/**
 * The fields Claude Code refuses in parameter rules, for every tool: they hold what the call acts
 * on, and a compound command or a path spelled differently would slip past a text match.
 */
export const FORBIDDEN_PARAMETERS = new Set(['command', 'file_path', 'path', 'notebook_path', 'url']);

/** Parameters that can be named in `Tool(param:value)` rules, per tool (beside any name for other tools). */
const PARAMETERS: Readonly<Record<string, ReadonlySet<string>>> = {
  Bash: new Set(['run_in_background', 'dangerouslyDisableSandbox']),
  Agent: new Set(['model', 'description', 'prompt', 'run_in_background']),
  Read: new Set(['offset', 'limit', 'pages']),
  Grep: new Set(['output_mode', 'glob', 'type', 'multiline', '-i']),
  Edit: new Set(['replace_all']),
  WebFetch: new Set(['prompt']),
  WebSearch: new Set(['allowed_domains', 'blocked_domains']),
};

const TOOL_NAME = /^[A-Za-z_*][A-Za-z0-9_*-]*$/;

export function parseRule(text: string, kind: RuleKind): Rule {
  const src = text.trim();
  if (src === '') throw new RuleError('empty rule', text, 0);
  const open = src.indexOf('(');
  let tool: string;
  let body: string | undefined;
  if (open < 0) {
    if (src.includes(')')) throw new RuleError('")" without "("', text, src.indexOf(')'));
    tool = src;
  } else {
    if (!src.endsWith(')'))
      throw new RuleError(`"${src.slice(0, open)}(" is not closed with ")"`, text, src.length);
    tool = src.slice(0, open);
    body = src.slice(open + 1, -1);
  }
  if (!TOOL_NAME.test(tool)) throw new RuleError(`"${tool}" is not a tool name`, text, 0);
  tool = canonicalToolName(tool);
  const toolIsPattern = tool.includes('*');
  if (toolIsPattern && kind === 'allow' && !/^mcp__[^*_][^*]*?__/.test(tool)) {
    throw new RuleError(
      'an allow rule may use "*" in the tool name only after a literal mcp__server__ prefix (deny and ask rules may use it anywhere)',
      text,
      tool.indexOf('*'),
    );
  }
  const specifier =
    body === undefined ? ({ type: 'any' } as const) : parseSpecifier(tool, body, kind, text, open + 1);
  return { kind, text: src, tool, toolIsPattern, specifier };
}

function parseSpecifier(tool: string, body: string, kind: RuleKind, text: string, at: number): Specifier {
  if (body.trim() === '')
    throw new RuleError(`${tool}() has an empty specifier; write ${tool} alone for every call`, text, at);
  if (body === '*') return { type: 'any' };
  const param = /^([A-Za-z_-][A-Za-z0-9_-]*):(.*)$/s.exec(body);
  if (param && isParameter(tool, param[1]!)) {
    const [, name, value] = param as unknown as [string, string, string];
    if (kind === 'allow') {
      throw new RuleError(`parameter rules (${tool}(${name}:...)) are for deny and ask only`, text, at);
    }
    return { type: 'param', name, pattern: value };
  }
  if (
    param &&
    (FORBIDDEN_PARAMETERS.has(param[1]!) ||
      (Object.hasOwn(PRIMARY_FIELDS, tool) && PRIMARY_FIELDS[tool] === param[1]))
  ) {
    throw new RuleError(
      `${tool}(${param[1]}:...) would match the raw ${param[1]} text, which a compound command can bypass; write ${tool}(${param[2]}) instead`,
      text,
      at,
    );
  }
  switch (tool) {
    case 'Bash':
    case 'Monitor':
      checkBalanced(body, text, at);
      return { type: 'bash', pattern: body };
    case 'Read':
    case 'Edit':
    case 'Write':
    case 'NotebookEdit':
    case 'MultiEdit':
    case 'Glob':
    case 'Grep':
      if (/\*\*[^/]/.test(body)) {
        throw new RuleError(`"${body}" is not a path pattern ("**" must be a whole path segment)`, text, at);
      }
      return { type: 'path', pattern: body, access: PATH_ACCESS[tool]! };
    case 'WebFetch': {
      const m = /^domain:(.+)$/.exec(body);
      if (m === null)
        throw new RuleError('WebFetch rules take domain:HOST (e.g. WebFetch(domain:*.github.com))', text, at);
      const host = m[1]!.trim();
      if (/[/:\s]/.test(host)) throw new RuleError(`"${host}" is not a host name pattern`, text, at + 7);
      return { type: 'domain', pattern: host.toLowerCase().replace(/\.$/, '') };
    }
    case 'Agent':
      return { type: 'agent', pattern: body };
    default:
      if (param && !tool.startsWith('mcp__')) {
        if (kind === 'allow')
          throw new RuleError(
            `parameter rules (${tool}(${param[1]}:...)) are for deny and ask only`,
            text,
            at,
          );
        return { type: 'param', name: param[1]!, pattern: param[2]! };
      }
      if (tool.startsWith('mcp__')) throw new RuleError(mcpSpecifierMessage(tool, param), text, at);
      return { type: 'primary', pattern: body };
  }
}

/**
 * MCP rules name tools only; what an MCP call's arguments must be is a `when:` condition. The
 * message gives the form that loads, built from what was written (`repo:prod` ->
 * `when: "input.repo === 'prod'"`), never another specifier form that is refused too.
 */
function mcpSpecifierMessage(tool: string, param: RegExpExecArray | null): string {
  const name = param?.[1];
  const value = param?.[2];
  const condition =
    name !== undefined && value !== undefined && /^[\w.@/:+-]+$/.test(value)
      ? `input.${name} === '${value}'`
      : 'input.<field> === ...';
  return `MCP rules take no specifier: to match the call's arguments write the rule "${tool}" with when: "${condition}"`;
}

function isParameter(tool: string, name: string): boolean {
  return !FORBIDDEN_PARAMETERS.has(name) && Object.hasOwn(PARAMETERS, tool) && PARAMETERS[tool]!.has(name);
}

function checkBalanced(body: string, text: string, at: number): void {
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '(') depth++;
    else if (body[i] === ')' && --depth < 0)
      throw new RuleError('unbalanced ")" in the specifier', text, at + i);
  }
  if (depth !== 0) throw new RuleError('unbalanced "(" in the specifier', text, at + body.length);
}
