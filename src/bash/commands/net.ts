import type { Word } from '../word.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from './spec.js';

/**
 * The network: nothing here is read-only (even a GET leaves the machine). What decides
 * "destructive" is whether data or commands are sent: uploads, POST/PUT/DELETE, pushes, ssh.
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/** A `@file` value (curl -d @f, httpie field=@f) reads that file. */
function readAtFile(v: Word | undefined, sink: EffectSink): void {
  if (v?.value.startsWith('@') && v.value.length > 1 && v.value !== '@-')
    sink.read({ ...v, value: v.value.slice(1) });
}

const SEND = (v: Word | undefined, s: EffectSink): void => {
  readAtFile(v, s);
  s.network('curl sends data to a server', true);
};

const CURL_RULES: OptionRules = {
  options: [
    'd|data=',
    'data-ascii=',
    'data-binary=',
    'data-raw=',
    'data-urlencode=',
    'json=',
    'F|form=',
    'form-string=',
    'T|upload-file=',
    'X|request=',
    'o|output=',
    'O|remote-name',
    'remote-name-all',
    'output-dir=',
    'D|dump-header=',
    'c|cookie-jar=',
    'b|cookie=',
    'K|config=',
    'trace=',
    'trace-ascii=',
    'stderr=',
    'libcurl=',
    'etag-save=',
    'hsts=',
    'alt-svc=',
    'H|header=',
    'u|user=',
    'A|user-agent=',
    'e|referer=',
    'm|max-time=',
    'connect-timeout=',
    'retry=',
    'w|write-out=',
    'x|proxy=',
    'r|range=',
    'Y|speed-limit=',
    'y|speed-time=',
    'z|time-cond=',
    'E|cert=',
    'key=',
    'cacert=',
    'capath=',
    'resolve=',
    'connect-to=',
    'interface=',
    'url=',
    'G|get',
    'I|head',
  ],
  anyOption: true,
  effects: {
    data: SEND,
    'data-ascii': SEND,
    'data-binary': SEND,
    'data-raw': SEND,
    'data-urlencode': SEND,
    json: SEND,
    form: SEND,
    'form-string': SEND,
    'upload-file': (v, s) => {
      if (v) s.read(v);
      s.network('curl -T uploads a file', true);
    },
    request: (v, s) => {
      if (!v || !/^(GET|HEAD|OPTIONS)$/i.test(v.value))
        s.network(`curl -X ${v?.raw ?? ''} sends a request that changes data`, true);
    },
    output: 'write',
    'remote-name': (_v, s) =>
      s.write(
        literal('(a file named after the URL)'),
        'overwrite',
        'curl -O writes a file named after the URL',
      ),
    'remote-name-all': (_v, s) =>
      s.write(literal('(files named after the URLs)'), 'overwrite', 'curl writes files named after the URLs'),
    'dump-header': 'write',
    'cookie-jar': 'write',
    cookie: (v, s) => v && !v.value.includes('=') && s.read(v),
    config: (v, s) =>
      s.notUnderstood(`curl -K reads options from ${v?.raw ?? 'a file'}, which may write files or upload`),
    trace: 'write',
    'trace-ascii': 'write',
    stderr: 'write',
    libcurl: 'write',
    'etag-save': 'write',
    hsts: 'write',
    'alt-svc': 'write',
  },
};

const curl: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, CURL_RULES);
    sink.network('curl opens a network connection', false);
    for (const w of parsed.operands) {
      if (/^file:/i.test(w.value)) sink.read({ ...w, value: w.value.replace(/^file:\/\//i, '') });
    }
  },
};

const WGET_RULES: OptionRules = {
  options: [
    'O|output-document=',
    'o|output-file=',
    'a|append-output=',
    'i|input-file=',
    'P|directory-prefix=',
    'post-data=',
    'post-file=',
    'body-data=',
    'body-file=',
    'method=',
    'e|execute=',
    'use-askpass=',
    'spider',
    'q|quiet',
    'c|continue',
    'N|timestamping',
    'r|recursive',
    'header=',
    'user=',
    'password=',
    'T|timeout=',
    't|tries=',
    'U|user-agent=',
    'B|base=',
  ],
  anyOption: true,
  effects: {
    'output-document': (v, s) => v && v.value !== '-' && s.write(v, 'overwrite', `wget -O writes ${v.raw}`),
    'output-file': 'write',
    'append-output': 'append',
    'input-file': 'read',
    'post-data': (_v, s) => s.network('wget sends data to a server', true),
    'post-file': (v, s) => {
      if (v) s.read(v);
      s.network('wget uploads a file', true);
    },
    'body-data': (_v, s) => s.network('wget sends data to a server', true),
    'body-file': (v, s) => {
      if (v) s.read(v);
      s.network('wget uploads a file', true);
    },
    method: (v, s) =>
      !/^(GET|HEAD)$/i.test(v?.value ?? '') &&
      s.network(`wget --method=${v?.raw ?? ''} changes data on a server`, true),
    execute: (v, s) => s.notUnderstood(`wget -e ${v?.raw ?? ''} runs a wgetrc command`),
    'use-askpass': 'exec',
  },
};

const wget: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, WGET_RULES);
    sink.network('wget downloads over the network', false);
    const toStdout = parsed.options.some((o) => o.id === 'output-document' && o.value?.value === '-');
    const spider = parsed.options.some((o) => o.id === 'spider');
    if (!toStdout && !spider && !parsed.options.some((o) => o.id === 'output-document')) {
      sink.write(literal('(downloaded files)'), 'create', 'wget saves what it downloads');
    }
  },
};

/** ssh: `-o ProxyCommand=...` and LocalCommand run locally before anything connects. */
const ssh: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      let opt: Word | undefined;
      if (v === '-o') opt = args[i + 1];
      else if (v.startsWith('-o')) opt = { ...args[i]!, value: v.slice(2) };
      if (opt) {
        const m = /^\s*(ProxyCommand|LocalCommand|KnownHostsCommand|Match\s+exec)\s*[= ]\s*(.*)$/is.exec(
          opt.value,
        );
        if (m && m[2] !== 'none') sink.runScript({ ...opt, value: m[2]! }, `${ctx.name} -o ${m[1]}`);
      }
      if (v === '-F' && args[i + 1])
        sink.notUnderstood(`${ctx.name} -F reads a configuration that can run commands`);
    }
    sink.network(`${ctx.name} connects to another machine and can run commands or send data there`, true);
  },
};

function sends(what: string): CommandSpec {
  return { analyze: (ctx, sink) => sink.network(`${ctx.name} ${what}`, true) };
}

function looks(what: string): CommandSpec {
  return { analyze: (ctx, sink) => sink.network(`${ctx.name} ${what}`, false) };
}

/** rsync: a `host:` or `rsync://` operand is remote; the last operand is written. */
const RSYNC_RULES: OptionRules = {
  options: [
    'e|rsh=',
    'rsync-path=',
    'exclude=',
    'include=',
    'exclude-from=',
    'include-from=',
    'files-from=',
    'filter|f=',
    'chmod=',
    'chown=',
    'log-file=',
    'partial-dir=',
    'temp-dir|T=',
    'compare-dest=',
    'copy-dest=',
    'link-dest=',
    'backup-dir=',
    'suffix=',
    'bwlimit=',
    'timeout=',
    'port=',
    'password-file=',
    'n|dry-run',
    'delete',
    'delete-before',
    'delete-during',
    'delete-after',
    'delete-excluded',
    'remove-source-files',
    'list-only',
  ],
  anyOption: true,
  effects: {
    rsh: 'exec',
    'rsync-path': 'not-read-only',
    'exclude-from': 'read',
    'include-from': 'read',
    'files-from': 'read',
    'password-file': 'read',
    'log-file': 'write',
  },
};

const rsync: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, RSYNC_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    const ops = [...parsed.operands];
    const remote = ops.some((w) => /^[^/]*:|^rsync:\/\//.test(w.value));
    if (remote) sink.network('rsync copies to or from another machine', true);
    if (ids.has('dry-run') || ids.has('list-only') || ops.length < 2) {
      if (!remote && !ids.has('dry-run') && !ids.has('list-only') && ops.length < 2)
        sink.notUnderstood('rsync without a destination');
      return;
    }
    const dest = ops.pop()!;
    sink.write(dest, 'overwrite', `rsync writes into ${dest.raw}`);
    for (const src of ops) sink.read(src);
    if ([...ids].some((id) => id.startsWith('delete')))
      sink.remove(dest, 'rsync --delete deletes files at the destination');
    if (ids.has('remove-source-files'))
      for (const src of ops) sink.remove(src, 'rsync --remove-source-files deletes the sources');
  },
};

/** httpie / xh: data items or a mutating method make it a send. */
const httpie: CommandSpec = {
  analyze(ctx, sink) {
    const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
    const method = operands[0] && /^[A-Z]+$/.test(operands[0].value) ? operands[0].value : undefined;
    const items = operands.slice(method ? 2 : 1);
    for (const w of items) {
      const m = /^[^=:@]*(?:=@|:=@|@)(.+)$/.exec(w.value);
      if (m) sink.read({ ...w, value: m[1]! });
    }
    const dataItems = items.some((w) => /=|:=|@/.test(w.value) && !/^[^=]*:[^=]*$/.test(w.value));
    const mutating = method !== undefined ? !/^(GET|HEAD|OPTIONS)$/.test(method) : dataItems;
    sink.network(`${ctx.name} makes an HTTP request${mutating ? ' that sends data' : ''}`, mutating);
    const download = ctx.args.find((w) => /^(-o|--output)$/.test(w.value));
    if (download)
      sink.write(
        ctx.args[ctx.args.indexOf(download) + 1] ?? literal('(output)'),
        'overwrite',
        `${ctx.name} -o writes a file`,
      );
  },
};

/** gh: reads of PRs/issues/runs are network reads; `gh api` sends with -X or fields; the rest changes things. */
const GH_READS =
  /^(pr (view|list|diff|checks|status)|issue (view|list|status)|run (view|list|watch)|workflow (list|view)|repo (view|list)|release (view|list)|auth status|search \w+|gist (view|list)|label list|cache list|ruleset (list|view)|status|browse)$/;
const gh: CommandSpec = {
  analyze(ctx, sink) {
    const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
    const key = words.slice(0, 2).join(' ');
    if (words[0] === 'api') {
      const mutating = ctx.args.some(
        (w) =>
          /^(-X|--method)$/.test(w.value) ||
          /^--method=/.test(w.value) ||
          /^(-f|-F|--field|--raw-field|--input)$/.test(w.value),
      );
      const method = ctx.args[ctx.args.findIndex((w) => /^(-X|--method)$/.test(w.value)) + 1]?.value;
      sink.network(
        `gh api ${mutating && method !== 'GET' ? 'sends a request that changes data' : 'reads from GitHub'}`,
        mutating && method !== 'GET',
      );
      return;
    }
    if (GH_READS.test(key) || GH_READS.test(words[0] ?? '')) {
      sink.network(`gh ${key} reads from GitHub`, false);
      return;
    }
    sink.network(`gh ${key} changes things on GitHub`, true);
  },
};

/** Cluster and cloud CLIs: reads are network reads; other verbs change remote state. */
function cloud(readVerbs: RegExp, position: 'first' | 'last'): CommandSpec {
  return {
    analyze(ctx, sink) {
      const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
      const verb =
        position === 'first'
          ? words[0]
          : (words.find((w, i) => i > 0 && /^[a-z]+(-[a-z]+)*$/.test(w) && i === words.length - 1) ??
            words[words.length - 1]);
      const reads = verb !== undefined && readVerbs.test(verb);
      if (words.length === 0 || reads) {
        sink.network(`${ctx.name} ${words.slice(0, 3).join(' ')} reads remote state`, false);
        return;
      }
      sink.network(`${ctx.name} ${words.slice(0, 3).join(' ')} changes remote state`, true);
    },
  };
}

const kubectl = cloud(
  /^(get|describe|logs|top|explain|version|cluster-info|api-resources|api-versions|auth|config|diff|events|wait)$/,
  'first',
);

/** aws/gcloud/az: the operation verb decides (describe-*, list-*, get-* read). */
const awsLike: CommandSpec = {
  analyze(ctx, sink) {
    const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
    const readVerb =
      words.some((w) => /^(describe|list|get|show|ls|head|wait|help|version|info|whoami)(-|$)/.test(w)) &&
      !words.some((w) =>
        /^(delete|remove|rm|put|create|update|terminate|destroy|set|attach|detach|cp|mv|sync|run|start|stop|reboot|modify|deploy|apply)(-|$)/.test(
          w,
        ),
      );
    sink.network(
      `${ctx.name} ${words.slice(0, 3).join(' ')} ${readVerb ? 'reads' : 'changes'} cloud resources`,
      !readVerb,
    );
  },
};

const docker: CommandSpec = {
  analyze(ctx, sink) {
    const remoteDaemon = ctx.args.some((w) => /^(-H|--host|--context|-c)(=|$)/.test(w.value));
    const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
    const sub = words[0] === 'container' || words[0] === 'image' ? `${words[0]} ${words[1] ?? ''}` : words[0];
    if (remoteDaemon) sink.network(`${ctx.name} talks to a remote daemon`, true);
    if (
      sub === undefined ||
      /^(ps|images|inspect|logs|version|info|stats|top|history|port|diff|search|container (ls|list|inspect|logs|top|port|diff|stats)|image (ls|list|inspect|history))$/.test(
        sub,
      )
    ) {
      if (sub === 'search') sink.network(`${ctx.name} search queries a registry`, false);
      if (sub === 'logs' && ctx.args.some((w) => /^(-f|--follow)$/.test(w.value)))
        sink.lingers('docker logs -f keeps following');
      return;
    }
    if (
      /^(rm|rmi|kill|stop|prune|system|volume|network|container (rm|prune|kill|stop)|image (rm|prune))/.test(
        sub,
      )
    ) {
      sink.change(`${ctx.name} ${sub} removes or stops containers, images or data`, true);
      return;
    }
    if (/^(push|login|logout)$/.test(sub)) {
      sink.network(`${ctx.name} ${sub} sends to a registry`, true);
      return;
    }
    sink.opaque(`${ctx.name} ${sub} runs or builds containers whose contents the line does not show`);
  },
};

const terraform: CommandSpec = {
  analyze(ctx, sink) {
    const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
    if (sub === 'version' || sub === undefined) return;
    if (sub === 'fmt') {
      if (ctx.args.some((w) => /^-check/.test(w.value))) return;
      sink.write(literal('(terraform files)'), 'modify', `${ctx.name} fmt rewrites files`);
      return;
    }
    const destroys = /^(destroy|apply|import|taint|untaint|state|force-unlock|workspace|refresh)$/.test(sub);
    sink.network(`${ctx.name} ${sub} talks to providers and state backends`, destroys);
    sink.opaque(`${ctx.name} ${sub} runs provider plugins`);
  },
};

const databases: CommandSpec = {
  analyze: (ctx, sink) => sink.opaque(`${ctx.name} runs database commands the classifier cannot see into`),
};

export const NETWORK: CommandTable = {
  curl,
  wget,
  ssh,
  scp: sends('copies files to or from another machine'),
  sftp: sends('transfers files to or from another machine'),
  ftp: sends('transfers files over the network'),
  rsync,
  nc: sends('opens a raw network connection and sends its input'),
  ncat: sends('opens a raw network connection and sends its input'),
  netcat: sends('opens a raw network connection and sends its input'),
  socat: sends('relays data over the network'),
  telnet: sends('opens a network connection'),
  ping: looks('sends packets to a host'),
  ping6: looks('sends packets to a host'),
  traceroute: looks('sends packets to a host'),
  tracepath: looks('sends packets to a host'),
  mtr: looks('sends packets to a host'),
  dig: looks('queries DNS'),
  nslookup: looks('queries DNS'),
  host: looks('queries DNS'),
  whois: looks('queries a whois server'),
  nmap: looks('scans hosts'),
  arping: looks('sends packets to a host'),
  http: httpie,
  https: httpie,
  xh: httpie,
  gh,
  kubectl,
  oc: kubectl,
  helm: cloud(/^(list|ls|status|get|history|show|search|version|template|lint|env|repo)$/, 'first'),
  aws: awsLike,
  gcloud: awsLike,
  az: awsLike,
  docker,
  podman: docker,
  terraform,
  tofu: terraform,
  psql: databases,
  mysql: databases,
  mariadb: databases,
  sqlite3: databases,
  mongo: databases,
  mongosh: databases,
  'redis-cli': databases,
  cqlsh: databases,
};
