import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCodexPatch } from '../../src/adapters/codex-patch.js';
import { patchParts } from '../../src/adapters/codex-patch-parts.js';
import { shellPatch } from '../../src/adapters/codex-patch-shell.js';

/**
 * Codex's apply_patch text read as Codex reads it. The cases are those of Codex's own parser
 * tests (codex-rs/apply-patch/src/parser.rs, github.com/openai/codex: test_parse_patch,
 * test_parse_patch_lenient, the streaming test's seven-hunk patch) and its Lark grammar (sent to
 * the model as the apply_patch tool's definition by codex-cli 0.171.0, recorded in
 * test/e2e/codex-cli.e2e.test.ts). test/e2e/codex-patch-oracle.e2e.test.ts checks the same
 * reading against the real Codex binary applying generated patches.
 */
const patch = (...lines: string[]) => lines.join('\n');
const paths = (text: string) => {
  const r = parseCodexPatch(text);
  if (!r.ok) throw new Error(r.reason);
  return r.files.map((f) =>
    f.op === 'update' && f.movePath ? `${f.op} ${f.path} -> ${f.movePath}` : `${f.op} ${f.path}`,
  );
};
const refusal = (text: string) => {
  const r = parseCodexPatch(text);
  return r.ok ? undefined : r.reason;
};

describe('parseCodexPatch', () => {
  it("reads Codex's own example: add, delete, update with a move", () => {
    const text = patch(
      '*** Begin Patch',
      '*** Add File: path/add.py',
      '+abc',
      '+def',
      '*** Delete File: path/delete.py',
      '*** Update File: path/update.py',
      '*** Move to: path/update2.py',
      '@@ def f():',
      '-    pass',
      '+    return 123',
      '*** End Patch',
    );
    expect(paths(text)).toEqual([
      'add path/add.py',
      'delete path/delete.py',
      'update path/update.py -> path/update2.py',
    ]);
    const r = parseCodexPatch(text);
    expect(r.ok && r.files[0]).toEqual({ op: 'add', path: 'path/add.py', contents: 'abc\ndef\n' });
    expect(r.ok && r.files[2]).toMatchObject({
      chunks: [{ oldText: '    pass', newText: '    return 123' }],
    });
  });

  it("takes Codex's leniencies: trimmed markers, a heredoc wrapper, CRLF, blank lines between chunks", () => {
    expect(paths(' *** Begin Patch \n *** Add File: foo\n+hi\n *** End Patch \n')).toEqual(['add foo']);
    expect(paths("<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF")).toEqual(['delete a']);
    expect(paths('<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n')).toEqual(['delete a']);
    expect(paths('*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n')).toEqual(['delete a']);
    expect(
      paths(
        patch(
          '*** Begin Patch',
          '*** Update File: f',
          '@@',
          '-a',
          '+b',
          '',
          '@@ g',
          '-c',
          '+d',
          '*** End Patch',
        ),
      ),
    ).toEqual(['update f']);
    // an update without a first @@, and one ending at *** End of File
    expect(
      paths(patch('*** Begin Patch', '*** Update File: f', ' import foo', '+bar', '*** End Patch')),
    ).toEqual(['update f']);
    expect(
      paths(patch('*** Begin Patch', '*** Update File: f', '@@', '+x', '*** End of File', '*** End Patch')),
    ).toEqual(['update f']);
  });

  it('reads a Move to line as codex-cli 0.171.0 does: its end trimmed, a leading space no move (found by the oracle)', () => {
    // the landed first reading kept "b.txt " while Codex moved to b.txt: toolgate decided another file
    expect(
      paths(patch('*** Begin Patch', '*** Update File: a', '*** Move to: b.txt ', ' one', '*** End Patch')),
    ).toEqual(['update a -> b.txt']);
    expect(
      paths(patch('*** Begin Patch', '*** Update File: a', '*** Move to:  b ', ' one', '*** End Patch')),
    ).toEqual(['update a ->  b']);
  });

  it('trims as Rust trims, not as JavaScript does: U+0085 is space, U+FEFF is not', () => {
    expect(paths('*** Begin Patch\n\u0085*** Delete File: a\n*** End Patch')).toEqual(['delete a']);
    expect(refusal('*** Begin Patch\n\ufeff*** Delete File: a\n*** End Patch')).toMatch(
      /not a valid hunk header/,
    );
    // the path is what follows the marker: an absolute one, or one with a leading space, as written
    expect(
      paths('*** Begin Patch\n*** Delete File: /etc/passwd\n*** Delete File:  x\n*** End Patch'),
    ).toEqual(['delete /etc/passwd', 'delete  x']);
  });

  it('refuses what Codex would not apply, and what it cannot tell apart', () => {
    expect(refusal('bad')).toMatch(/first line of the patch must be/);
    expect(refusal('*** Begin Patch\nbad')).toMatch(/last line of the patch must be/);
    expect(refusal(patch('*** Begin Patch', '*** Update File: test.py', '*** End Patch'))).toMatch(
      /is empty/,
    );
    expect(refusal(patch('*** Begin Patch', '*** Frobnicate File: x', '*** End Patch'))).toMatch(
      /not a valid hunk/,
    );
    expect(refusal(patch('*** Begin Patch', '*** Add File: a', ' +x', '*** End Patch'))).toMatch(
      /not a valid hunk/,
    );
    expect(refusal(patch('*** Begin Patch', '*** Update File: f', '@@', '-a', 'x', '*** End Patch'))).toMatch(
      /must start with a @@ context marker/,
    );
    // the marker needs its space: an empty path is no header
    expect(refusal(patch('*** Begin Patch', '*** Add File: ', '+x', '*** End Patch'))).toMatch(
      /not a valid hunk/,
    );
    expect(refusal(patch('*** Begin Patch', '*** End Patch'))).toMatch(/changes no file/);
    expect(
      refusal(
        patch('*** Begin Patch', '*** Environment ID: remote', '*** Add File: a', '+x', '*** End Patch'),
      ),
    ).toMatch(/execution environment/);
    // a context line that reads as a header once trimmed: Codex versions differ on such lines
    expect(
      refusal(
        patch('*** Begin Patch', '*** Update File: f', '@@', ' *** Add File: g', '+x', '*** End Patch'),
      ),
    ).toMatch(/reads as a file header/);
    expect(
      refusal(patch('*** Begin Patch', '*** Update File: f', '  *** Move to: g', '+x', '*** End Patch')),
    ).toMatch(/reads as a file header/);
  });

  it('reads the seven hunks of the long patch in Codex parser tests', () => {
    const text = patch(
      '*** Begin Patch',
      '*** Add File: docs/release-notes.md',
      '+# Release notes',
      '+',
      '*** Update File: src/config.rs',
      '@@ impl Config',
      '-    pub apply_patch_progress: bool,',
      '+    pub stream_apply_patch_progress: bool,',
      '     pub include_diagnostics: bool,',
      '@@ fn default_progress_interval()',
      '-    Duration::from_millis(500)',
      '+    Duration::from_millis(250)',
      '*** Delete File: src/legacy_patch_progress.rs',
      '*** Update File: crates/cli/src/main.rs',
      '*** Move to: crates/cli/src/bin/codex.rs',
      '@@ fn run()',
      '-    let args = Args::parse();',
      '+    let cli = Cli::parse();',
      '*** Add File: tests/fixtures/apply_patch_progress.json',
      '+{}',
      '*** Update File: README.md',
      '@@ Development workflow',
      ' Build the Rust workspace before opening a pull request.',
      '+Prefer tests that exercise the exact event payload shape.',
      '*** Delete File: docs/old-apply-patch-progress.md',
      '*** End Patch',
    );
    expect(paths(text)).toEqual([
      'add docs/release-notes.md',
      'update src/config.rs',
      'delete src/legacy_patch_progress.rs',
      'update crates/cli/src/main.rs -> crates/cli/src/bin/codex.rs',
      'add tests/fixtures/apply_patch_progress.json',
      'update README.md',
      'delete docs/old-apply-patch-progress.md',
    ]);
  });

  it('never throws, and every file it reads is named on a header line of the patch (fast-check)', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '*** Add File: a',
        '*** Delete File: b',
        '*** Update File: c',
        '*** Move to: d',
        '@@',
        '@@ x',
      ),
      fc.constantFrom(
        '+new',
        '-old',
        ' same',
        '',
        '*** End of File',
        '*** junk',
        '  *** Add File: e',
        '\u0085',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (body, wrap) => {
        const text = ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
        const r = parseCodexPatch(wrap ? `<<'EOF'\n${text}\nEOF` : text);
        if (!r.ok) return;
        const named = body.map((l) => l.replace(/^[\s\u0085]+/, ''));
        for (const f of r.files) {
          expect(named.some((l) => l.endsWith(f.path))).toBe(true);
          if (f.op === 'update' && f.movePath) expect(body).toContain(`*** Move to: ${f.movePath}`);
        }
      }),
      { seed: 17, numRuns: 2000 },
    );
  });
});

describe('patchParts: the toolgate calls a patch stands for', () => {
  const call = { tool: 'apply_patch', input: {}, cwd: '/ws', mode: 'default' as const, sessionId: 's' };
  it('is a Write per added or deleted file, an Edit or MultiEdit per update, and a Read + removal for a move', () => {
    const parts = patchParts(
      patch(
        '*** Begin Patch',
        '*** Add File: src/new.ts',
        '+export {};',
        '*** Delete File: /tmp/gone',
        '*** Update File: a.txt',
        '@@',
        '-x',
        '+y',
        '@@',
        '-z',
        '+w',
        '*** Update File: .env',
        '*** Move to: src/leak.txt',
        '@@',
        ' KEY=1',
        '*** End Patch',
      ),
      call,
    );
    if (typeof parts === 'string') throw new Error(parts);
    expect(parts.map((p) => [p.request.tool, p.request.input])).toEqual([
      ['Write', { file_path: '/ws/src/new.ts', content: 'export {};\n' }],
      ['Write', { file_path: '/tmp/gone', content: '' }],
      [
        'MultiEdit',
        {
          file_path: '/ws/a.txt',
          edits: [
            { old_string: 'x', new_string: 'y' },
            { old_string: 'z', new_string: 'w' },
          ],
        },
      ],
      ['Read', { file_path: '/ws/.env' }],
      ['Write', { file_path: '/ws/.env', content: '' }],
      ['Edit', { file_path: '/ws/src/leak.txt', old_string: 'KEY=1', new_string: 'KEY=1' }],
    ]);
    // each part keeps the call's directory, mode and session, and says which file it is
    expect(parts.every((p) => p.request.cwd === '/ws' && p.request.sessionId === 's')).toBe(true);
    expect(parts[3]!.label).toBe('apply_patch Update File .env (moved away: read)');
  });

  it('is the reason when the patch cannot be read', () => {
    expect(patchParts('*** Begin Patch\n*** End Patch', call)).toMatch(
      /^Codex apply_patch: the patch changes no file/,
    );
  });
});

describe("shellPatch: Codex's shell spelling of apply_patch (codex-rs/apply-patch/src/invocation.rs)", () => {
  const body = '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch';
  it("reads the forms Codex applies itself: apply_patch <<'EOF', applypatch, cd DIR &&", () => {
    expect(shellPatch(`apply_patch <<'EOF'\n${body}\nEOF\n`)).toEqual({ patch: body, shell: false });
    expect(shellPatch(`applypatch <<"PATCH"\n${body}\nPATCH`)).toEqual({ patch: body, shell: false });
    expect(shellPatch(`cd src && apply_patch <<'EOF'\n${body}\nEOF`)).toEqual({
      patch: body,
      dir: 'src',
      shell: false,
    });
    expect(shellPatch(`cd '/w s' && apply_patch <<'EOF'\n${body}\nEOF`)).toMatchObject({ dir: '/w s' });
  });

  it('an unquoted delimiter over a body a shell would expand is decided as Bash too', () => {
    expect(shellPatch(`apply_patch <<EOF\n${body}\nEOF`)).toEqual({ patch: body, shell: false });
    expect(
      shellPatch(`apply_patch <<EOF\n*** Begin Patch\n*** Add File: a\n+$(id)\n*** End Patch\nEOF`),
    ).toMatchObject({
      shell: true,
    });
  });

  it('is nothing for any other line: more after the heredoc, a second statement, <<-, another cd', () => {
    for (const line of [
      `apply_patch <<'EOF'\n${body}\nEOF\nrm -rf ~`,
      `apply_patch <<'EOF'\n${body}\nEOF\nEOF`,
      `echo hi; apply_patch <<'EOF'\n${body}\nEOF`,
      `apply_patch <<'EOF' && rm x\n${body}\nEOF`,
      `apply_patch <<-'EOF'\n${body}\nEOF`,
      `cd $HOME && apply_patch <<'EOF'\n${body}\nEOF`,
      `cd a b && apply_patch <<'EOF'\n${body}\nEOF`,
      `apply_patch '${body}'`,
      'apply_patch',
    ])
      expect(shellPatch(line), line).toBeUndefined();
  });
});
