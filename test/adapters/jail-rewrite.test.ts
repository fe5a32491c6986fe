import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jailRewrite } from '../../src/adapters/jail-rewrite.js';

/**
 * The hook's rewrite must hand `toolgate jail` the model's command byte for byte (issue #13
 * item 4). The stand-in for toolgate here is bash itself printing its last argument, so what
 * is compared is exactly what bash makes of the rewritten line.
 */
const PRINT_LAST = ['bash', '-c', 'printf %s "${@: -1}"', 'toolgate'];

function roundTrip(command: string, mode?: string): string {
  const rewrite = jailRewrite(
    { command, description: 'kept', timeout: 5000 },
    {
      toolgate: PRINT_LAST,
      policies: ["/p/it's a policy.yaml"],
      cwd: '/w s/$HOME',
      ...(mode ? { mode } : {}),
    },
  );
  if (!rewrite.ok) throw new Error(rewrite.reason);
  const out = spawnSync('bash', ['-c', String(rewrite.input.command)], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`bash failed: ${out.stderr}`);
  return out.stdout;
}

const shellish = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      "'",
      '"',
      '\\',
      '\n',
      '$',
      '`',
      '!',
      ' ',
      '\t',
      '*',
      '{',
      '}',
      ';',
      '&',
      '|',
      '(',
      ')',
      '#',
      '~',
      '\r',
      '<<',
      'EOF',
      "'\\''",
      '$(',
      '%',
    ),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
    fc.integer({ min: 1, max: 0x7f }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 60,
});

describe('jailRewrite', () => {
  it('keeps every other field of the input and names the jail, the policy, the cwd and the mode', () => {
    const r = jailRewrite(
      { command: 'ls', description: 'list', run_in_background: false },
      { toolgate: ['/usr/bin/node', '/opt/tg/main.js'], policies: ['/p.yaml'], cwd: '/w', mode: 'plan' },
    );
    expect(r).toEqual({
      ok: true,
      input: {
        command:
          "'/usr/bin/node' '/opt/tg/main.js' 'jail' '--policy' '/p.yaml' '--cwd' '/w' '--mode' 'plan' '--' 'ls'",
        description: 'list',
        run_in_background: false,
      },
    });
  });

  it('round-trips quotes, newlines, heredocs and expansions byte for byte', () => {
    for (const command of [
      'echo \'a\'"b"\\c',
      'cat <<EOF\n$HOME `id` $(id)\nEOF',
      "cat <<'X'\n'\\''\nX\n",
      'printf "%s\\n" "${PWD%%$(touch /tmp/x)}"',
      "it's\r\n\ttab",
      '  leading and trailing  ',
      'ünïcødé 🚀 \u{10FFFF}',
    ]) {
      expect(roundTrip(command)).toBe(command);
    }
  });

  it('round-trips any NUL-free command (property)', () => {
    fc.assert(
      fc.property(
        shellish.filter((s) => s.trim() !== ''),
        (command) => roundTrip(command, 'acceptEdits') === command,
      ),
      { numRuns: 100 },
    );
  });

  it('refuses what no shell word can carry instead of changing it', () => {
    const jail = { toolgate: ['tg'], policies: [], cwd: '/w' };
    expect(jailRewrite({ command: 'a\0b' }, jail)).toMatchObject({ ok: false, reason: /NUL/ });
    expect(jailRewrite({ command: 'a\uD800b' }, jail)).toMatchObject({ ok: false, reason: /surrogate/ });
    expect(jailRewrite({ command: '  ' }, jail)).toMatchObject({ ok: false });
    expect(jailRewrite(['ls'], jail)).toMatchObject({ ok: false });
  });
});
