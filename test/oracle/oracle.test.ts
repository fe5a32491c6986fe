import { describe, expect, it } from 'vitest';
import { probeOracle, runOracle } from './jail.js';
import { effectsOf, type TraceFile } from './trace.js';

const probe = probeOracle();

/**
 * The oracle can fail: each kind of effect, done for real in the jail, is seen. If one of these
 * went quiet, every "proven read-only" line behind it would prove nothing.
 */
describe.skipIf(!probe.available)(`the execution oracle (${probe.reason ?? 'bwrap + strace'})`, () => {
  it('sees nothing in a line that only reads', async () => {
    const r = await runOracle('ls -la && cat README.md | wc -l && git log --oneline | head -1');
    expect(r.readOnly, JSON.stringify(r)).toBe(true);
  });

  it('sees a write, also through a re-opened descriptor', async () => {
    const direct = await runOracle('echo x > out.txt');
    expect(direct.readOnly).toBe(false);
    expect(direct.effects.writes.join()).toContain('/home/user/project/out.txt');
    const reopened = await runOracle(': <f >/dev/fd/0');
    expect(reopened.readOnly).toBe(false);
    expect(reopened.changed).toContain('/home/user/project/f');
  });

  it('sees a removal and a rename', async () => {
    const r = await runOracle('mv notes.txt n2 && rm f');
    expect(r.readOnly).toBe(false);
    expect(r.effects.writes.join('\n')).toMatch(/rename.*notes\.txt/);
    expect(r.effects.writes.join('\n')).toMatch(/unlink.*\/f\b/);
  });

  it('sees a program the line does not name', async () => {
    // The program's name is made at run time, so it appears nowhere in the line.
    const r = await runOracle('n=hid; n=${n}den; printf "#!/bin/sh\\n" > /tmp/$n; chmod +x /tmp/$n; /tmp/$n');
    expect(r.hiddenExecs).toEqual(['/tmp/hidden']);
    const shown = await runOracle('find . -maxdepth 0 -exec true {} \\;');
    expect(shown.hiddenExecs).toEqual([]);
  });

  it('sees a connection attempt although the jail has no network', async () => {
    const r = await runOracle('exec 3<>/dev/tcp/192.0.2.1/80');
    expect(r.readOnly).toBe(false);
    expect(r.effects.network.join()).toContain('192.0.2.1');
  });

  it('sees a signal sent to a process the line did not start, and a process left running', async () => {
    const own = await runOracle('sleep 5 & kill -TERM $!');
    expect(own.effects.kills).toEqual([]);
    const k = await runOracle('kill -TERM 1 2>/dev/null');
    expect(k.effects.kills.join()).toContain('SIGTERM');
    const bg = await runOracle('sleep 30 &');
    expect(bg.readOnly).toBe(false);
    // Torn down with the jail, perhaps before its exec: the forked bash or sleep itself.
    expect(bg.effects.leftovers.length).toBeGreaterThan(0);
  });

  it('sees an attempt to change the system, refused in the jail', async () => {
    const r = await runOracle('date -s 2001-01-01 2>/dev/null');
    expect(r.effects.system.join()).toContain('clock_settime');
  });

  it('leaves a temporary file made and removed by the run out (a long here-document)', async () => {
    const body = 'x'.repeat(70_000);
    const r = await runOracle(`cat <<EOF >/dev/null\n${body}\nEOF`);
    expect(r.readOnly, JSON.stringify(r.effects)).toBe(true);
  });
});

describe('effectsOf (strace text)', () => {
  const bwrap: TraceFile = {
    pid: 10,
    text: 'mkdir("/newroot/usr", 0755) = 0\nclone(child_stack=NULL, flags=SIGCHLD) = 2 /* 11 in strace\'s PID NS */\n+++ exited with 0 +++\n',
  };
  const bash = (body: string): TraceFile => ({
    pid: 11,
    text: `execve("/oracle/bash", ["/oracle/bash", "-c", "x"], 0x1 /* 2 vars */) = 0\n${body}+++ exited with 0 +++\n`,
  });

  it("leaves bubblewrap's own set-up out, and keeps the line's", () => {
    const e = effectsOf(
      [bwrap, bash('openat(AT_FDCWD</p>, "y", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</p/y>\n')],
      '/oracle/bash',
      () => false,
    );
    expect(e.writes).toEqual(['openat /p/y']);
  });

  it('does not count writes to pipes and the null device', () => {
    const e = effectsOf(
      [
        bwrap,
        bash(
          'openat(AT_FDCWD</p>, "/dev/stdout", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<pipe:[1]>\nopenat(AT_FDCWD</p>, "/dev/null", O_WRONLY) = 3</dev/null>\n',
        ),
      ],
      '/oracle/bash',
      () => false,
    );
    expect(e.writes).toEqual([]);
  });

  it('counts a process that never ended as left running', () => {
    const e = effectsOf(
      [
        bwrap,
        bash("clone(child_stack=NULL, flags=SIGCHLD) = 3 /* 12 in strace's PID NS */\n"),
        {
          pid: 12,
          text: 'execve("/usr/bin/sleep", ["sleep", "9"], 0x1 /* 2 vars */) = 0\n+++ killed by SIGKILL +++\n',
        },
      ],
      '/oracle/bash',
      () => false,
    );
    expect(e.leftovers).toEqual(['/usr/bin/sleep (pid 12)']);
  });
});
