import { hostSlice, unknownHost, urlHost } from '../../commands/hosts.js';
import { onlyAsks } from '../../commands/only-asks.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from '../../commands/spec.js';
import type { Word } from '../../word.js';

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
  coded: {
    data: 'sends-data',
    'data-ascii': 'sends-data',
    'data-binary': 'sends-data',
    'data-raw': 'sends-data',
    'data-urlencode': 'sends-data',
    json: 'sends-data',
    form: 'sends-data',
    'form-string': 'sends-data',
    cert: 'reads',
    'upload-file': 'sends-data',
    request: 'sends-data',
    'remote-name': 'writes',
    'remote-name-all': 'writes',
    cookie: 'reads',
    config: 'unmodelled',
  },
};

/** curl's help and version: printed before any URL is read (-V is --version). */
const CURL_ASKS: ReadonlySet<string> = new Set(['--help', '-h', '--version', '-V']);

const curl: CommandSpec = {
  rules: CURL_RULES,
  analyze(ctx, sink) {
    if (onlyAsks(ctx.args, CURL_ASKS)) return;
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
  coded: {
    'output-document': 'writes',
    'post-data': 'sends-data',
    'post-file': 'sends-data',
    'body-data': 'sends-data',
    'body-file': 'sends-data',
    method: 'sends-data',
    execute: 'unmodelled',
  },
};

const wget: CommandSpec = {
  rules: WGET_RULES,
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
  coded: { proxy: 'network' },
};

const httpie: CommandSpec = {
  rules: HTTPIE_RULES,
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

export const NETWORK: CommandTable = {
  curl,
  wget,
  http: httpie,
  https: httpie,
  xh: httpie,
};
