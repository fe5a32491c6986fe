import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isMcpServerName,
  mcpToolName,
  mcpToolPart,
  sanitizeMcpServerName,
  serverNameOfCommand,
  serverNameOfLaunch,
} from '../../src/adapters/mcp-names.js';
import { decide } from '../../src/policy/decide.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * Server and tool names, whatever a command or a server calls itself, become names that rules
 * match exactly: `mcp__S` reaches every tool of S and of no other server, `mcp__S__T` reaches T.
 */
const anyText = fc.string({ unit: 'binary', maxLength: 24 });
const cwd = '/tmp';

describe('server names', () => {
  it('defaults to the basename of the command', () => {
    expect(serverNameOfCommand('/usr/local/bin/github-mcp')).toBe('github-mcp');
    expect(serverNameOfCommand('./Server.Files.js')).toBe('server_files');
    expect(serverNameOfCommand('C:\\tools\\my server.exe'.replaceAll('\\', '/'))).toBe('my_server');
    expect(serverNameOfCommand('...')).toBeUndefined();
  });

  it('names a launched server after what the launcher starts, not after the launcher (issue 19)', () => {
    const cases: [string, string[], string | undefined][] = [
      ['npx', ['-y', '@modelcontextprotocol/server-filesystem', '/srv'], 'filesystem'],
      ['npx', ['-y', '@modelcontextprotocol/server-github'], 'github'],
      ['/usr/bin/npx', ['@playwright/mcp@latest'], 'playwright'],
      ['pnpm', ['dlx', '@upstash/context7-mcp'], 'context7'],
      ['npm', ['exec', '--', 'context7-mcp'], 'context7'],
      ['uvx', ['mcp-server-git', '--repository', '.'], 'git'],
      ['python3', ['-m', 'mcp_server_time'], 'time'],
      ['node', ['/opt/servers/weather-mcp/dist/index.js'], 'weather'],
      ['docker', ['run', '-i', '--rm', '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server'], 'github'],
      ['/usr/local/bin/github-mcp', [], 'github-mcp'],
      // a launcher whose target says nothing: no name rather than "node" or "npx" for every server
      ['node', ['build/index.js'], undefined],
      ['npx', [], undefined],
    ];
    for (const [command, args, name] of cases)
      expect(serverNameOfLaunch(command, args), [command, ...args].join(' ')).toBe(name);
  });

  it('accepts names rules can match and refuses the ambiguous ones', () => {
    for (const ok of ['github', 'GitHub', 'my-server', 'a_b', '0x'])
      expect(isMcpServerName(ok), ok).toBe(true);
    for (const bad of ['', '_a', 'a_', 'a__b', 'a.b', 'a b', 'ü'])
      expect(isMcpServerName(bad), bad).toBe(false);
  });

  it('sanitizes anything into a valid name in [a-z0-9_-], or nothing', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        const name = sanitizeMcpServerName(raw);
        if (name === undefined) return;
        expect(name).toMatch(/^[a-z0-9_-]+$/);
        expect(isMcpServerName(name)).toBe(true);
        expect(sanitizeMcpServerName(name)).toBe(name);
      }),
    );
  });

  it('gives tool names that exact, server and other-server rules match as intended', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, anyText, anyText, async (rawServer, rawOther, rawTool) => {
        const server = sanitizeMcpServerName(rawServer);
        const other = sanitizeMcpServerName(rawOther);
        fc.pre(server !== undefined && rawTool !== '');
        const tool = mcpToolName(server!, rawTool);
        expect(tool).toMatch(/^[A-Za-z0-9_-]+$/);
        const denies = async (rule: string) => {
          const policy = await policyFromText(`version: 1\nrules:\n  - deny: ${JSON.stringify(rule)}\n`);
          return decide({ tool, input: {}, cwd }, policy).behavior === 'deny';
        };
        expect(await denies(tool)).toBe(true);
        expect(await denies(`mcp__${server}`)).toBe(true);
        expect(await denies(`mcp__${server}__*`)).toBe(true);
        if (other !== undefined && other !== server) expect(await denies(`mcp__${other}`)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('normalizes tool parts as Claude Code does and leaves valid ones alone', () => {
    expect(mcpToolPart('notes.append')).toBe('notes_append');
    expect(mcpToolPart('get_status')).toBe('get_status');
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), (t) => {
        expect(mcpToolPart(t)).toBe(t);
      }),
    );
  });
});
