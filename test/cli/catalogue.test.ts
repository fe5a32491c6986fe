import { describe, expect, it } from 'vitest';
import { CATALOGUE, GROUPS } from '../../src/bash/catalogue/index.js';
import { runCli } from '../helpers/cli.js';

/** `toolgate catalogue`, as a process: the classifier's knowledge as a table a reviewer reads. */
describe('toolgate catalogue', () => {
  it('--json lists every entry with its group, options and effects, and which are still hand-written', async () => {
    const r = await runCli(['catalogue', '--json']);
    expect(r.code).toBe(0);
    const table = JSON.parse(r.stdout);
    expect(table.entries.map((e: { name: string }) => e.name)).toEqual(CATALOGUE.map((e) => e.name));
    expect(new Set(table.entries.map((e: { group: string }) => e.group))).toEqual(
      new Set(Object.keys(GROUPS)),
    );
    expect(table.handWritten).toEqual(
      CATALOGUE.filter((e) => e.shape.kind === 'hand-written').map((e) => e.name),
    );
    const sort = table.entries.find((e: { name: string }) => e.name === 'sort');
    expect(sort).toMatchObject({ shape: 'reader', unknownOptions: 'harmless' });
    expect(sort.options).toContainEqual({
      spellings: ['-o', '--output'],
      value: 'required',
      effect: 'writes',
    });
    expect(sort.options).toContainEqual({
      spellings: ['--compress-program'],
      value: 'required',
      effect: 'runs-program',
    });
  });

  it('--json lists every option of every entry, with the effect the entry declares', async () => {
    const table = JSON.parse((await runCli(['catalogue', '--json'])).stdout);
    const byName = new Map(table.entries.map((e: { name: string }) => [e.name, e]));
    const missing: string[] = [];
    let checked = 0;
    for (const e of CATALOGUE) {
      const listed = (byName.get(e.name) as { options: { spellings: string[]; effect: string }[] }).options;
      for (const [spec, effect] of Object.entries(e.options ?? {})) {
        // A spec's names as a reviewer reads them: `-o`, `--output`.
        const spellings = spec
          .replace(/[=?]$/, '')
          .split('|')
          .map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
        const shown = listed.some(
          (o) => o.effect === effect && spellings.every((s) => o.spellings.includes(s)),
        );
        if (!shown) missing.push(`${e.name} ${spec} (${effect})`);
        checked++;
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(1_500);
  });

  it('--effect keeps the options with that effect (and the one-off analyzers, with why)', async () => {
    const r = await runCli(['catalogue', '--json', '--effect', 'writes']);
    const table = JSON.parse(r.stdout);
    for (const e of table.entries) {
      if (e.shape === 'escape') expect(e.escape).toBeTruthy();
      else if (e.shape === 'hand-written') expect(e.handWritten).toBeTruthy();
      else expect(e.options.length).toBeGreaterThan(0);
      for (const o of e.options) expect(['writes', 'appends', 'removes']).toContain(o.effect);
    }
    expect(table.entries.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['sort', 'tee', 'sed']),
    );
    expect(table.entries.map((e: { name: string }) => e.name)).not.toContain('cut');
  });

  it('prints one command, by name or alias, with its examples', async () => {
    const r = await runCli(['catalogue', 'gawk']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^== text: 1 entry\n\nawk, gawk, mawk, nawk {2}\(escape; unknown options: fail\)\n/,
    );
    expect(r.stdout).toMatch(/-f, --file VALUE +runs-code/);
    expect(r.stdout).toContain(`e.g. destructive    awk 'BEGIN{system("rm -rf /")}'`);
  });

  it('says so when a command is unknown (exit 1) or an effect is not one (exit 2)', async () => {
    const unknown = await runCli(['catalogue', 'frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"frobnicate" is not a known command');
    const bad = await runCli(['catalogue', '--effect', 'scribbles']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown effect "scribbles"');
  });
});
