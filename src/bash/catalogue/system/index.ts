import { type About, handWritten } from '../hand-written.js';
import { SYSTEM } from './analyzers.js';
import { SYSTEM_PRINTERS } from './printers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  date: [
    'print or set the system date and time',
    {
      readOnly: ['date', 'date -u +%Y-%m-%dT%H:%M:%SZ', "date -d '@1700000000' --iso-8601=seconds"],
      notReadOnly: ['date -s "2026-01-01"', "date -s '2024-01-01 00:00:00'"],
    },
  ],
  hostname: [
    "show or set the system's host name",
    { readOnly: ['hostname'], notReadOnly: ['hostname newname', 'hostname ci-runner-07'] },
  ],
  kill: ['send a signal to a process', { readOnly: ['kill -l'], destructive: ['kill 1234', 'kill -9 4242'] }],
  pkill: [
    'look up, signal, or wait for processes based on name a...',
    {
      destructive: [
        'pkill node',
        'killall node',
        'skill -9 bob',
        'xkill -id 0x1',
        "pkill -f 'vite --port 5173'",
      ],
    },
  ],
  crontab: [
    "lists, edits or removes a user's cron table",
    { readOnly: ['crontab -l'], destructive: ['crontab -r', 'crontab jobs.cron'] },
  ],
  systemctl: [
    'Control the systemd system and service manager',
    {
      readOnly: ['systemctl status nginx', 'systemctl status docker --no-pager -l'],
      destructive: ['systemctl stop nginx', 'systemctl restart postgresql'],
    },
  ],
  service: ['run a System V init script', { destructive: ['service nginx restart'] }],
  journalctl: [
    'Query the systemd journal',
    { readOnly: ['journalctl -u nginx -n 50', 'journalctl -u nginx --no-pager -n 100'] },
  ],
  ip: [
    'show / manipulate routing, network devices, interfaces...',
    { readOnly: ['ip addr show'], notReadOnly: ['ip link set eth0 down'] },
  ],
  ifconfig: [
    'configure a network interface',
    { readOnly: ['ifconfig -a'], notReadOnly: ['ifconfig eth0 down'] },
  ],
  sysctl: [
    'configure kernel parameters at runtime',
    { readOnly: ['sysctl -a'], notReadOnly: ['sysctl -w net.ipv4.ip_forward=1'] },
  ],
  top: [
    'display Linux processes',
    { notReadOnly: ['top -b -n 1', 'top -bn1'], destructive: ['top', 'top -n 1', 'htop', 'btop'] },
  ],
  renice: ['alter priority of running processes', { notReadOnly: ['renice -n 10 -p 1234'] }],
  mount: [
    'mount a filesystem',
    {
      readOnly: ['mount'],
      notReadOnly: ['mount /dev/sdb1 /mnt'],
      destructive: ['umount /mnt', 'swapon -a', 'swapoff -a'],
    },
  ],
  shutdown: [
    'Halt, power off or reboot the machine',
    { destructive: ['shutdown -h now', 'reboot', 'halt', 'poweroff'] },
  ],
  useradd: [
    'create a new user or update default new user information',
    {
      destructive: [
        'useradd bob',
        'usermod -aG sudo bob',
        'userdel bob',
        'groupadd devs',
        'groupdel devs',
        'passwd bob',
        'chpasswd',
        'chsh -s /bin/zsh',
      ],
    },
  ],
  stty: ['change and print terminal line settings', { readOnly: ['stty -a'], notReadOnly: ['stty -echo'] }],
  apt: ['command-line interface', { readOnly: ['apt list --installed'], destructive: ['apt install curl'] }],
  'apt-get': [
    'APT package handling utility -- command-line interface',
    { destructive: ['apt-get install -y curl'] },
  ],
  dpkg: ['package manager for Debian', { readOnly: ['dpkg -l'], destructive: ['dpkg -i pkg.deb'] }],
  rpm: ['the RPM package manager', { readOnly: ['rpm -qa'], destructive: ['rpm -i pkg.rpm'] }],
  yum: ['the yum package manager', { destructive: ['yum install httpd'] }],
  dnf: ['the dnf package manager', { destructive: ['dnf install httpd'] }],
  brew: ['the Homebrew package manager', { readOnly: ['brew list'], destructive: ['brew install wget'] }],
  snap: ['the snap package manager', { readOnly: ['snap list'], destructive: ['snap install code'] }],
  pacman: ['the Arch package manager', { readOnly: ['pacman -Q'], destructive: ['pacman -S vim'] }],
  localectl: [
    'Control the system locale and keyboard layout settings',
    {
      readOnly: ['localectl status', 'timedatectl'],
      notReadOnly: [
        'localectl set-locale LANG=C.UTF-8',
        'timedatectl set-ntp true',
        'timedatectl set-time 12:00',
        'localectl set-keymap us',
      ],
    },
  ],
  getent: [
    'get entries from Name Service Switch libraries',
    { readOnly: ['getent passwd root'], notReadOnly: ['getent hosts example.com'] },
  ],
  ldd: ['print shared object dependencies', { destructive: ['ldd /bin/ls'] }],
};

export const SYSTEM_ENTRIES = [
  ...SYSTEM_PRINTERS,
  ...handWritten(
    SYSTEM,
    'system information reads; what changes processes, services, users, packages, the clock or the kernel is named by subcommand and option',
    ABOUT,
  ),
];
