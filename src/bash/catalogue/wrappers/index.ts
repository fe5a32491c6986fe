import { type About, handWritten } from '../hand-written.js';
import { WRAPPERS } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  timeout: [
    'run a command with a time limit',
    {
      readOnly: ['timeout 5s tail -f logs/dev.log'],
      destructive: ['timeout 30 rm -rf /tmp/cache', 'timeout -s KILL 60 git clean -fdx'],
    },
  ],
  nice: ['run a program with modified scheduling priority', { readOnly: ['nice -n 19 du -sh /home/*'] }],
  nohup: [
    'run a command immune to hangups, with output to a non-tty',
    { readOnly: ['nohup true'], destructive: ['nohup ./server'] },
  ],
  stdbuf: ['Run COMMAND, with modified buffering operations for it...', { readOnly: ['stdbuf -oL cat f'] }],
  // The program, not bash's keyword (which takes only -p): `command time` or /usr/bin/time.
  time: [
    'run programs and summarize system resource usage',
    {
      readOnly: ['command time -p ls', 'time ls', 'time git status'],
      destructive: ['command time -o t.log ls'],
    },
  ],
  command: [
    'runs a command bypassing functions, or says what a name is (-v)',
    {
      readOnly: ['command -v node', 'command -v docker', 'command -v rg fd jq', 'command git rev-parse HEAD'],
    },
  ],
  builtin: ['runs a shell builtin', { readOnly: ['builtin echo x'] }],
  noglob: ['zsh: runs a command without filename expansion', { readOnly: ['noglob ls *'] }],
  exec: ['replaces the shell with a command', { destructive: ['exec ./server', 'exec rm -f stale.pid'] }],
  env: [
    'run a program in a modified environment',
    {
      readOnly: ['env -u GIT_DIR git rev-parse --git-dir'],
      destructive: ['env rm -rf target', "env -S 'rm -rf dist'"],
    },
  ],
  sudo: [
    'runs a command as another user (sudo, doas)',
    {
      destructive: [
        'doas rm -rf /',
        'sudo rm -rf /var/cache/app',
        'sudo -u deploy rm -rf /srv/app/releases/old',
      ],
    },
  ],
  xargs: ['build and execute command lines from standard input', { destructive: ['xargs rm < list'] }],
  watch: [
    'execute a program periodically, showing output fullscreen',
    { readOnly: ['watch -n 1 ls'], destructive: ["watch -n 60 'rm -f /tmp/app/*.sock'"] },
  ],
  setsid: ['run a program in a new session', { destructive: ['setsid ./server'] }],
  ionice: ['set or get process I/O scheduling class and priority', { readOnly: ['ionice -c 3 ls'] }],
  chrt: ['manipulate the real-time attributes of a process', { readOnly: ['chrt -i 0 ls'] }],
  taskset: ["set or retrieve a process's CPU affinity", { readOnly: ['taskset -c 0 ls'] }],
  unbuffer: ['runs a command with its output unbuffered', { readOnly: ['unbuffer ls'] }],
  flock: ['manage locks from shell scripts', { notReadOnly: ['flock /tmp/l ls'] }],
  parallel: [
    'GNU parallel: runs a command template over many arguments',
    { destructive: ['parallel rm ::: a b', 'parallel -j2 rm ::: a b', 'parallel rm {} ::: a.tmp b.tmp'] },
  ],
  busybox: [
    "runs one of busybox's applets",
    { destructive: ['busybox rm -rf x', "busybox sh -c 'rm -rf /tmp/build'"] },
  ],
  coproc: [
    'runs a command in the background with pipes to it',
    { destructive: ['coproc ./server', 'coproc rm -rf tmp'] },
  ],
  bash: [
    'GNU Bourne-Again SHell',
    {
      readOnly: ["sh -c 'ls'", "dash -c 'ls'", "ksh -c 'ls'", "mksh -c 'ls'", "ash -c 'ls'", "rbash -c 'ls'"],
      destructive: [
        "sh -c 'rm -rf ~'",
        'zsh install.sh',
        "bash -c 'rm -rf build'",
        "bash -lc 'rm -rf ~/.npm/_cacache'",
        'bash -ic "git push -f"',
      ],
    },
  ],
  fish: ['the fish shell', { destructive: ['fish install.fish'] }],
};

export const WRAPPERS_ENTRIES = handWritten(
  WRAPPERS,
  'wrappers and shells: the inner command or script is analyzed as written; options that change how it runs',
  ABOUT,
);
