import { hostSlice, unknownHost } from '../../commands/hosts.js';
import type { EffectSink } from '../../commands/spec.js';
import { staticWord, type Word } from '../../word.js';
import type { CatalogueEntry } from '../entry.js';

/**
 * openssl SUBCOMMAND [-option [value]]...: only two queries are known, each with the options
 * that print and nothing else; every other subcommand and option fails closed, since most of
 * them write (`-out`, `req -new`, `genrsa`, `enc`), connect (`s_client`, `ocsp -url`), or load
 * code (`-engine`, `-provider-path`).
 *
 * openssl's options are its own, not getopt's: one dash or two (`-noout`, `--noout`), a value in
 * the next word or after `=` (`-in f`, `-in=f`), no abbreviations, no letters run together.
 */

/** `openssl version`: what it may print (all of it, the build's flags, its directories). */
const VERSION_FLAGS: ReadonlySet<string> = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'm', 'o', 'p', 'r', 'v']);

/** `openssl x509` options that only choose what is printed about the certificate read. */
const X509_FLAGS: ReadonlySet<string> = new Set([
  'noout',
  'text',
  'subject',
  'issuer',
  'dates',
  'startdate',
  'enddate',
  'serial',
  'fingerprint',
  'hash',
  'subject_hash',
  'issuer_hash',
  'pubkey',
  'modulus',
  'email',
  'ocspid',
  'ocsp_uri',
  'purpose',
  'alias',
  'sha1',
  'sha256',
  'sha512',
  'md5',
]);
/** Options taking a value that only chooses a format or a check (`-in` is the file read). */
const X509_VALUES: ReadonlySet<string> = new Set([
  'in',
  'inform',
  'nameopt',
  'certopt',
  'ext',
  'checkend',
  'dateopt',
]);

/** `-noout`, `--in=f`: the option's name and the value given with `=`. */
function optionOf(w: Word): { name: string; attached?: string } | undefined {
  const m = /^--?([A-Za-z0-9_]+)(?:=(.*))?$/s.exec(w.value);
  if (m === null) return undefined;
  return m[2] === undefined ? { name: m[1]! } : { name: m[1]!, attached: m[2] };
}

function version(sink: EffectSink, args: readonly Word[]): void {
  for (const w of args) {
    const o = optionOf(w);
    if (o === undefined || o.attached !== undefined || !VERSION_FLAGS.has(o.name))
      sink.notUnderstood(`openssl version: "${w.raw}" is not one of what it prints`);
  }
}

function x509(sink: EffectSink, args: readonly Word[]): void {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const o = optionOf(w);
    if (o !== undefined && X509_FLAGS.has(o.name) && o.attached === undefined) continue;
    if (o === undefined || !X509_VALUES.has(o.name)) {
      sink.notUnderstood(`openssl x509: "${w.raw}" may write, sign, or load code (not modelled)`);
      continue;
    }
    const value = o.attached === undefined ? args[++i] : undefined;
    if (o.attached === undefined && value === undefined) {
      sink.notUnderstood(`openssl x509 -${o.name} has no value`);
      return;
    }
    // The file read: a rule that denies reading it applies (`-in .env`, `-in=.env`).
    if (o.name === 'in') sink.read(value ?? staticWord(o.attached!));
  }
}

/**
 * `s_client`, `s_time`: a TLS connection to `-connect HOST:PORT` (or a `HOST:PORT` operand),
 * which sends what the program reads from stdin. Any other way to name the host (`-host`,
 * `-proxy`, `-servername` aside) is a host only known at run time, so a domain rule may match.
 * Never read-only.
 */
function client(sink: EffectSink, args: readonly Word[], sub: Word): void {
  sink.network(`openssl ${sub.value} opens a TLS connection and sends what it reads`, true);
  const at = args.findIndex((w) => /^--?connect$/.test(w.value));
  const target = at >= 0 ? args[at + 1] : args.find((w) => !w.value.startsWith('-'));
  const colon = target?.value.lastIndexOf(':') ?? -1;
  const hidden = args.some((w) => /^--?(host|proxy|connect=.*)$/.test(w.value));
  if (target === undefined || hidden || colon <= 0 || target.value.startsWith('['))
    sink.destination(unknownHost(sub));
  else sink.destination(hostSlice(target, 0, colon));
}

const QUERIES: Readonly<Record<string, (sink: EffectSink, args: readonly Word[]) => void>> = {
  version,
  x509,
};
const CLIENTS: ReadonlySet<string> = new Set(['s_client', 's_time']);

export const OPENSSL: CatalogueEntry = {
  name: 'openssl',
  summary: 'OpenSSL toolkit: keys, certificates, TLS; only `version` and printing `x509` are reads',
  unknownOptions: 'fail',
  shape: {
    kind: 'escape',
    why: 'a subcommand per tool, each with options of its own (one dash, long names, values after `=`)',
    analyze(ctx, sink) {
      // A word only known at run time may be any subcommand or option, or split into several.
      const dynamic = ctx.args.find((w) => w.expansions.length > 0);
      if (dynamic !== undefined) {
        sink.notUnderstood(`openssl: "${dynamic.raw}" is only known at run time`);
        return;
      }
      const [sub, ...rest] = ctx.args;
      if (sub !== undefined && Object.hasOwn(QUERIES, sub.value)) return QUERIES[sub.value]!(sink, rest);
      if (sub !== undefined && CLIENTS.has(sub.value)) client(sink, rest, sub);
      sink.notUnderstood(
        `openssl ${sub?.raw ?? '(interactive)'} is not modelled: it may write keys or files, connect, or load code`,
      );
    },
  },
  examples: {
    readOnly: [
      'openssl version',
      'openssl version -a',
      'openssl x509 -noout -text -in cert.pem',
      'openssl x509 -in cert.pem -noout -subject -issuer -dates',
      'openssl x509 --noout --fingerprint --sha256 --in=cert.pem',
    ],
    notReadOnly: [
      'openssl',
      'openssl x509 -in cert.pem -out c.der -outform DER',
      'openssl x509 -req -in c.csr -signkey k.pem -out c.pem',
      'openssl x509 -noout -text -in cert.pem -engine ./e.so',
      'openssl enc -aes-256-cbc -in f -out f.enc -k x',
      'openssl req -new -key k.pem -out c.csr',
      'openssl genrsa -out k.pem 2048',
      'openssl version -x',
      'openssl $SUB -noout -in cert.pem',
    ],
    destructive: ['openssl s_client -connect example.com:443', 'echo | openssl s_client example.com:443'],
  },
};
