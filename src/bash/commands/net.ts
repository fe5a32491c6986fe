import type { Word } from '../word.js';
import { hostSlice, unknownHost, urlHost } from './hosts.js';
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

/** `--data-urlencode [name]@file` sends the file (`name=...` is literal content). */
const SEND_URLENCODED = (v: Word | undefined, s: EffectSink): void => {
  const m = v && /^[^=@]*@(.+)$/s.exec(v.value);
  if (v && m) s.read({ ...v, value: m[1]! });
  s.network('curl sends data to a server', true);
};

/** `-F name=@file` uploads the file, `-F name=<file` sends its contents (`;type=...` may follow). */
const SEND_FORM = (v: Word | undefined, s: EffectSink): void => {
  const m = v && /^[^=]*=[@<]([^;]+)/s.exec(v.value);
  if (v && m && m[1] !== '-') s.read({ ...v, value: m[1]! });
  s.network('curl sends data to a server', true);
};

/** Certificates and keys are read to authenticate: `--key ~/.ssh/id_rsa` reads the key. */
const READS_CERT = (v: Word | undefined, s: EffectSink): void => {
  if (v) s.read({ ...v, value: v.value.replace(/(?<!\\):.*$/s, '') });
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
    'netrc-file=',
    'capath=',
    'resolve=',
    'connect-to=',
    'interface=',
    'url=',
    'G|get',
    'I|head',
    'g|globoff',
    'preproxy=',
    'doh-url=',
  ],
  anyOption: true,
  effects: {
    data: SEND,
    'data-ascii': SEND,
    'data-binary': SEND,
    'data-raw': SEND,
    'data-urlencode': SEND_URLENCODED,
    json: SEND,
    form: SEND_FORM,
    'form-string': SEND,
    cert: READS_CERT,
    key: 'read',
    cacert: 'read',
    'netrc-file': 'read',
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
    config: (v, s) => {
      if (v && v.value !== '-') s.read(v);
      s.notUnderstood(`curl -K reads options from ${v?.raw ?? 'a file'}, which may write files or upload`);
    },
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
    const globs = !parsed.options.some((o) => o.id === 'globoff');
    const urls = [...parsed.operands, ...parsed.options.filter((o) => o.id === 'url').map((o) => o.value!)];
    for (const w of urls) {
      if (/^file:/i.test(w.value)) sink.read({ ...w, value: w.value.replace(/^file:\/\//i, '') });
      else curlHost(w, globs, sink);
    }
    for (const o of parsed.options) {
      const v = o.value;
      if (v === undefined) continue;
      if (o.id === 'proxy' || o.id === 'preproxy' || o.id === 'doh-url') curlHost(v, false, sink);
      else if (o.id === 'connect-to') {
        // HOST1:PORT1:HOST2:PORT2 sends the connection for HOST1 to HOST2.
        const parts = v.value.split(':');
        if (parts.length >= 4) {
          const start = parts[0]!.length + parts[1]!.length + 2;
          sink.destination(hostSlice(v, start, start + parts[2]!.length));
        } else sink.destination(unknownHost(v));
      } else if (o.id === 'config') sink.destination(unknownHost(v));
    }
  },
};

/** A curl URL: `{a,b}` and `[1-3]` in it are curl's own globs (unless -g), so its host is not literal. */
function curlHost(w: Word, globs: boolean, sink: EffectSink): void {
  const host = urlHost(w, true);
  if (host === undefined) return;
  if (globs && host.expansions.length === 0 && /[{}[\]]/.test(host.value.replace(/^\[[^\]]*\]$/, ''))) {
    sink.destination({ ...host, expansions: ['glob'], dynamicStart: true });
    return;
  }
  sink.destination(host);
}

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
    for (const w of parsed.operands) {
      const host = urlHost(w, true);
      if (host) sink.destination(host);
    }
    for (const o of parsed.options) {
      if (o.value === undefined) continue;
      // -i: the URLs are in a file; -B: relative ones are resolved against a base.
      if (o.id === 'input-file') sink.destination(unknownHost(o.value));
      if (o.id === 'base') {
        const host = urlHost(o.value, true);
        if (host) sink.destination(host);
      }
    }
    const toStdout = parsed.options.some((o) => o.id === 'output-document' && o.value?.value === '-');
    const spider = parsed.options.some((o) => o.id === 'spider');
    if (!toStdout && !spider && !parsed.options.some((o) => o.id === 'output-document')) {
      sink.write(literal('(downloaded files)'), 'create', 'wget saves what it downloads');
    }
  },
};

/** httpie / xh: data items or a mutating method make it a send. */
const HTTPIE_RULES: OptionRules = {
  options: [
    'a|auth=',
    'A|auth-type=',
    'session=',
    'session-read-only=',
    'o|output=',
    'proxy=',
    'verify=',
    'cert=',
    'cert-key=',
    'cert-key-pass=',
    'timeout=',
    'p|print=',
    's|style=',
    'format-options=',
    'pretty=',
    'max-redirects=',
    'max-headers=',
    'ssl=',
    'ciphers=',
    'boundary=',
    'raw=',
    'default-scheme=',
  ],
  anyOption: true,
  effects: {
    output: 'write',
    session: 'write',
    'session-read-only': 'read',
    cert: 'read',
    'cert-key': 'read',
    proxy: (v, s) => {
      // `--proxy=http:http://host:port`
      const url = v && /^[a-z]+:(.+)$/s.exec(v.value);
      if (v && url) {
        const host = urlHost({ ...v, value: url[1]! }, true);
        if (host) s.destination(host);
      }
    },
  },
};

const httpie: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, HTTPIE_RULES);
    const operands = parsed.operands;
    const method = operands[0] && /^[A-Z]+$/.test(operands[0].value) ? operands[0].value : undefined;
    const url = operands[method ? 1 : 0];
    if (url) {
      // `:3000/x` is localhost; anything else is a URL whose scheme may be left out.
      const host = /^:\d*(\/|$)/.test(url.value) ? undefined : urlHost(url, true);
      if (host) sink.destination(host);
    }
    const items = operands.slice(method ? 2 : 1);
    for (const w of items) {
      const m = /^[^=:@]*(?:=@|:=@|@)(.+)$/.exec(w.value);
      if (m) sink.read({ ...w, value: m[1]! });
    }
    const dataItems = items.some((w) => /=|:=|@/.test(w.value) && !/^[^=]*:[^=]*$/.test(w.value));
    const mutating = method !== undefined ? !/^(GET|HEAD|OPTIONS)$/.test(method) : dataItems;
    sink.network(`${ctx.name} makes an HTTP request${mutating ? ' that sends data' : ''}`, mutating);
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
