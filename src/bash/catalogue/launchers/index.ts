import { type About, handWritten } from '../hand-written.js';
import { LAUNCHERS } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  prlimit: ['get and set process resource limits', { notReadOnly: ['prlimit --pid 1'] }],
  script: [
    'make typescript of terminal session',
    { readOnly: ['script -q -c ls /dev/null', 'script --timing -q -c ls /dev/null'] },
  ],
  'xvfb-run': ['runs a command with a virtual X server', { readOnly: ['xvfb-run ls'] }],
  'dbus-run-session': [
    'start a process as a new D-Bus session',
    { readOnly: ['dbus-run-session --version'], notReadOnly: ['dbus-run-session ls'] },
  ],
  'dbus-launch': ['starts a D-Bus session bus', { destructive: ['dbus-launch ./app'] }],
  sshpass: ['gives ssh a password non-interactively', { destructive: ['sshpass -p x ssh host'] }],
  'ssh-agent': [
    'OpenSSH authentication agent',
    { notReadOnly: ['ssh-agent', 'ssh-agent -s', 'ssh-agent ls'], destructive: ['ssh-agent -k'] },
  ],
  caffeinate: ['macOS: runs a command keeping the machine awake', { readOnly: ['caffeinate ls'] }],
  numactl: ['runs a command with a NUMA policy', { readOnly: ['numactl -N 0 ls'] }],
  setarch: [
    'change reported architecture in new program environmen...',
    { readOnly: ['setarch x86_64 ls', 'linux32 ls', 'linux64 ls'] },
  ],
  eatmydata: ['runs a command with fsync disabled', { readOnly: ['eatmydata ls'] }],
  faketime: ['runs a command with a fake clock', { readOnly: ["faketime '2020-01-01' date"] }],
  proxychains: [
    'runs a command through proxies',
    { notReadOnly: ['proxychains curl https://x.example', 'proxychains4 curl https://x.example'] },
  ],
  torsocks: ['runs a command through Tor', { notReadOnly: ['torsocks curl https://x.example'] }],
  entr: ['runs a command when files change', { destructive: ['entr make'] }],
};

export const LAUNCHERS_ENTRIES = handWritten(
  LAUNCHERS,
  'launchers that set up an environment then run the inner command, analyzed as written',
  ABOUT,
);
