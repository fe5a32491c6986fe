import { z } from 'zod';
import type { AnyTool } from './tool.js';

/**
 * The tools of a session, by name. Lookup is exact; the only fallback is a tool's declared
 * deprecated aliases (e.g. `Task` for `Agent`), never a case-insensitive or fuzzy match, so a
 * model cannot reach a tool by misspelling its way into another.
 */
export interface ApiToolSchema {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** Sent for deferred tools: the model learns their schema through ToolSearch. */
  defer_loading?: true;
}

export type RegistryErrorKind = 'duplicate-name' | 'invalid-name';

export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private readonly byAlias = new Map<string, AnyTool>();

  constructor(tools: readonly AnyTool[]) {
    for (const tool of tools) {
      if (!NAME.test(tool.name)) {
        throw new RegistryError(
          'invalid-name',
          `"${tool.name}" is not a valid tool name (letters, digits, _ and -)`,
        );
      }
      if (this.byName.has(tool.name)) {
        throw new RegistryError('duplicate-name', `two tools are named "${tool.name}"`);
      }
      this.byName.set(tool.name, tool);
    }
    for (const tool of tools) {
      for (const alias of tool.aliases) {
        const taken = this.byName.get(alias) ?? this.byAlias.get(alias);
        if (taken && taken !== tool) {
          throw new RegistryError('duplicate-name', `"${alias}" names both ${taken.name} and ${tool.name}`);
        }
        this.byAlias.set(alias, tool);
      }
    }
  }

  /** The tool called `name`, or the one that lists it as a deprecated alias. */
  find(name: string): AnyTool | undefined {
    return this.byName.get(name) ?? this.byAlias.get(name);
  }

  all(): readonly AnyTool[] {
    return [...this.byName.values()];
  }

  /** Tools switched on for this session (a throwing isEnabled counts as off). */
  enabled(): readonly AnyTool[] {
    return this.all().filter((t) => t.isEnabled());
  }

  /** A new registry with more tools (e.g. an MCP server's). */
  with(tools: readonly AnyTool[]): ToolRegistry {
    return new ToolRegistry([...this.all(), ...tools]);
  }

  isDeferred(tool: AnyTool): boolean {
    return tool.shouldDefer && !tool.alwaysLoad;
  }

  /** Tool definitions for the Messages API; deferred ones carry `defer_loading`. */
  async apiSchemas(): Promise<ApiToolSchema[]> {
    const tools = this.enabled();
    return Promise.all(
      tools.map(async (tool) => {
        const schema: ApiToolSchema = {
          name: tool.name,
          description: await tool.prompt({ tools }),
          input_schema: inputJsonSchema(tool),
        };
        if (this.isDeferred(tool)) schema.defer_loading = true;
        return schema;
      }),
    );
  }

  /**
   * ToolSearch: `select:A,B` names tools exactly; anything else ranks enabled tools by how many
   * query words appear in the name (counted twice), the search hint and the description.
   */
  async search(query: string, max = 5): Promise<AnyTool[]> {
    const tools = this.enabled();
    const trimmed = query.trim();
    if (trimmed.startsWith('select:')) {
      const names = trimmed
        .slice('select:'.length)
        .split(',')
        .map((s) => s.trim());
      return names.map((n) => this.find(n)).filter((t): t is AnyTool => t !== undefined && tools.includes(t));
    }
    const words = trimmed.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const scored = await Promise.all(
      tools.map(async (tool) => {
        const name = tool.name.toLowerCase();
        const text = `${tool.searchHint} ${await tool.prompt({ tools })}`.toLowerCase();
        let score = 0;
        for (const w of words) score += (name.includes(w) ? 2 : 0) + (text.includes(w) ? 1 : 0);
        return { tool, score };
      }),
    );
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
      .slice(0, max)
      .map((s) => s.tool);
  }
}

/** The JSON Schema of what the model may send (the input side of the zod schema). */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const json = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { $schema: _ignored, ...rest } = json;
  return rest;
}
