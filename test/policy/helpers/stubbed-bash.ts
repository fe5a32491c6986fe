import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs a line with real bash in bubblewrap (no network, no capabilities, a throwaway /tmp)
 * with the named programs of /usr/bin replaced by a stub that records its argv: what a
 * disguise really runs, shown by bash itself and never by the code under test.
 */
export const hasBwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;

export interface StubbedBash {
  /** Every run of a stubbed program, in order: [name, ...args]. */
  runs(line: string): { runs: string[][]; stderr: string };
  dispose(): void;
}

export function stubbedBash(programs: readonly string[]): StubbedBash {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-stubbed-'));
  // Each stub appends its argv (NUL-separated words, one record a line) to the log.
  fs.writeFileSync(
    path.join(dir, 'stub'),
    '#!/bin/bash\n{ printf "%s" "${0##*/}"; printf "\\0%s" "$@"; printf "\\n"; } >> /tmp/log/argv\n',
    { mode: 0o755 },
  );
  const binds = programs.flatMap((n) => ['--ro-bind', path.join(dir, 'stub'), `/usr/bin/${n}`]);
  return {
    runs(line) {
      const logDir = fs.mkdtempSync(path.join(dir, 'log-'));
      const work = fs.mkdtempSync(path.join(dir, 'work-'));
      fs.mkdirSync(path.join(work, '.git'));
      // bwrap's options, then bash: the line runs in a fresh work directory with a .git in it.
      const r = spawnSync(
        'bwrap',
        [
          ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
          ...['--bind', logDir, '/tmp/log', '--bind', work, '/tmp/work', '--chdir', '/tmp/work'],
          ...['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', ...binds],
          ...['bash', '-c', line],
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
      const file = path.join(logDir, 'argv');
      const log = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      return {
        runs: log
          .split('\n')
          .filter((x) => x !== '')
          .map((x) => x.split('\0')),
        stderr: r.stderr?.trim() ?? '',
      };
    },
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
