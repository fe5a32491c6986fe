import type { Mode } from './mode.js';

/** One question to the policy: may this tool run with this input? */
export interface ToolRequest {
  tool: string;
  input: unknown;
  /** The working directory the call runs in (absolute). */
  cwd: string;
  mode?: Mode;
  sessionId?: string;
  agentId?: string;
}
