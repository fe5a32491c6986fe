import { execFileSync } from 'node:child_process';
import { type MessagesApi, startMessagesApi, toolResults } from '../../src/demo/scripted-model.js';
import { type CliRun, runProcess } from '../helpers/cli.js';

/**
 * One headless `claude -p` session against a loopback Messages API that makes scripted tool
 * calls, one per turn, and what Claude Code sent back for each (its tool_result). Nothing
 * leaves the machine; this machine's own managed toolgate policy is kept out of the way.
 */
export interface Call {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

export interface Session {
  readonly run: CliRun;
  /** The tool_result of call `i` (0-based); throws when Claude Code sent none. */
  result(i: number): { is_error: boolean; text: string };
}

const id = (i: number) => `toolu_guard_${String(i + 1).padStart(2, '0')}`;

export const bash = (command: string): Call => ({ name: 'Bash', input: { command, description: command } });

export async function session(
  claude: string,
  ws: string,
  home: string,
  calls: readonly Call[],
  env: Record<string, string> = {},
): Promise<Session> {
  let step = 0;
  const api: MessagesApi = await startMessagesApi((body) => {
    const mainLoop = Array.isArray(body.tools) && body.tools.some((t) => t.name === 'Bash');
    if (mainLoop && step < calls.length) {
      const i = step++;
      return {
        content: [{ type: 'tool_use', id: id(i), name: calls[i]!.name, input: calls[i]!.input }],
        stop_reason: 'tool_use',
      };
    }
    return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
  });
  try {
    const run = await runProcess(claude, ['-p', 'run the scripted calls', '--output-format', 'json'], {
      cwd: ws,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // no system-wide managed policy of this machine in the way
        TOOLGATE_MANAGED_POLICY: `${home}/no-managed-policy.yaml`,
        ...env,
      },
      killAfterMs: 240_000,
    });
    const requests = [...api.requests];
    return {
      run,
      result(i) {
        for (let r = requests.length - 1; r >= 0; r--) {
          const found = toolResults(requests[r]!).get(id(i));
          if (found) return found;
        }
        throw new Error(
          `no tool_result for call ${i + 1}; claude said: ${run.stdout.slice(0, 400)} ${run.stderr.slice(0, 400)}`,
        );
      },
    };
  } finally {
    await api.close();
  }
}

/** "2.1.332" from `claude --version`. */
export function versionOf(claude: string): string {
  return execFileSync(claude, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, DISABLE_AUTOUPDATER: '1' },
  })
    .trim()
    .split(/\s/)[0]!;
}
