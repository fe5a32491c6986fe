import { type About, handWritten } from '../hand-written.js';
import { RUN_AS } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  su: ['run a command with substitute user and group ID', { destructive: ["su -c 'rm -rf /'"] }],
  runuser: [
    'run a command with substitute user and group ID',
    { destructive: ['runuser -u bob -- rm -rf x'] },
  ],
  sg: ['execute command as different group ID', { destructive: ["sg staff -c 'rm x'"] }],
  pkexec: ['runs a command as another user through polkit', { destructive: ['pkexec rm -rf /'] }],
  chroot: [
    'run command or interactive shell with special root dir...',
    { destructive: ['chroot /mnt /bin/sh'] },
  ],
  nsenter: ['run program in different namespaces', { destructive: ['nsenter -t 1 -m sh'] }],
  unshare: ['run program in new namespaces', { destructive: ['unshare -r sh'] }],
  setpriv: [
    'run a program with different Linux privilege settings',
    { destructive: ['setpriv --reuid 0 sh'] },
  ],
  fakeroot: ['run a command in an environment faking root privileges...', { destructive: ['fakeroot rm x'] }],
  firejail: ['runs a program in a sandbox', { destructive: ['firejail ./tool'] }],
  'systemd-run': [
    'Run programs in transient scope units, service units, ...',
    { destructive: ['systemd-run ./tool'] },
  ],
};

export const RUN_AS_ENTRIES = handWritten(
  RUN_AS,
  'run a command as another user, in another root or namespace: the inner command, and the privilege it gains',
  ABOUT,
);
