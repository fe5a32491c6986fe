import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/audit/chain.js';
import { isSecretName, marker, redactJson, redactText } from '../../src/audit/redact.js';

const M = /\[redacted sha256:[0-9a-f]{16}\]/;

describe('redactText', () => {
  it.each([
    [
      'an AWS access key id',
      'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE',
      'AKIAIOSFODNN7EXAMPLE',
    ],
    [
      'a GitHub token',
      'git clone https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r',
      'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    ],
    ['a bearer token', 'curl -H "Authorization: Bearer abc.DEF-123_x" https://api', 'abc.DEF-123_x'],
    ['a basic credential', "curl -H 'authorization: Basic dXNlcjpwYXNz' x", 'dXNlcjpwYXNz'],
    ['an API key header', 'curl -H "x-api-key: k3y-VALUE-99" https://api', 'k3y-VALUE-99'],
    [
      'an Anthropic key',
      'ANTHROPIC=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv run',
      'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv',
    ],
    ['a secret env assignment', 'PGPASSWORD=hunter2 psql -h db', 'hunter2'],
    ['a quoted secret assignment', "export DB_PASSWORD='p@ss word'", 'p@ss word'],
    ['a double-quoted token', 'NPM_TOKEN="npm-abc-123" npm publish', 'npm-abc-123'],
    ['a single-quoted literal that starts with $', "PASSWORD='$ecret99' ./run", '$ecret99'],
    ['a password flag', 'mysql --password=s3cret -u root', 's3cret'],
    ['a token flag with a space', 'gh auth login --token abc123XYZ', 'abc123XYZ'],
    ['a URL password', 'git remote add o https://bob:pa55w0rd@git.example.com/r.git', 'pa55w0rd'],
    ['a JSON password member', 'curl -d \'{"user":"bob","password":"pa55"}\' x', 'pa55'],
    ['a YAML password line', 'db:\n  user: bob\n  password: pa55 word\n', 'pa55 word'],
    ['a JWT', 'TOKEN_LIKE eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM', 'eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM'],
    [
      'a private key',
      'echo "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----" > k',
      'b3BlbnNzaC1rZXk',
    ],
    [
      'a private key with no END line',
      'cat <<EOF\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg',
      'MIIEvQIBADANBg',
    ],
  ])('redacts %s', (_what, text, secret) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toMatch(M);
  });

  it.each([
    ['git status --short'],
    ['AUTHOR=me make release'],
    ['ls --color=auto'],
    ['PWD=/tmp MAX_TOKENS=5 ./run'],
    ['tokenizer: bpe'],
    ['gh auth login --with-token < token.txt'],
    ['docker login --password-stdin registry.example.com'],
    ['curl --token-file ~/.tok https://x'],
    ['export GITHUB_TOKEN=$(cat ~/.gh) TOKEN=${GH} KEY="$SECRET"'],
    ['AWS_ACCESS_KEY_ID=$ID aws s3 ls'],
  ])('leaves ordinary text alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it("writes a marker carrying the start of the secret's sha256, the same for the same secret", () => {
    expect(marker('hunter2')).toBe(`[redacted sha256:${sha256Hex('hunter2').slice(0, 16)}]`);
    expect(redactText('PGPASSWORD=hunter2 a; PGPASSWORD=hunter2 b')).toBe(
      `PGPASSWORD=${marker('hunter2')} a; PGPASSWORD=${marker('hunter2')} b`,
    );
  });

  it('does not redact its own markers again', () => {
    const once = redactText(
      'GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 --token "$(x)" Authorization: Bearer abc',
    );
    expect(redactText(once)).toBe(once);
    expect(once.match(/redacted/g)).toHaveLength(2);
  });
});

describe('redactJson', () => {
  it('replaces the whole value of members with secret names and says where it changed things', () => {
    const input = {
      command: 'PGPASSWORD=hunter2 psql',
      headers: { Authorization: 'anything at all', accept: 'json' },
      apiKey: 'plain',
      list: ['ok', 'TOKEN=abc123'],
      tokenizer: 'bpe',
      n: 5,
    };
    const { value, pointers } = redactJson(input, ['request', 'input']);
    expect(value).toEqual({
      command: `PGPASSWORD=${marker('hunter2')} psql`,
      headers: { Authorization: marker('anything at all'), accept: 'json' },
      apiKey: marker('plain'),
      list: ['ok', `TOKEN=${marker('abc123')}`],
      tokenizer: 'bpe',
      n: 5,
    });
    expect(pointers).toEqual([
      '/request/input/command',
      '/request/input/headers/Authorization',
      '/request/input/apiKey',
      '/request/input/list/1',
    ]);
    expect(input.apiKey).toBe('plain'); // the caller's object is not touched
  });

  it('keeps a "__proto__" member as data', () => {
    const { value } = redactJson(JSON.parse('{"__proto__":{"password":"x"}}'));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe(`{"__proto__":{"password":"${marker('x')}"}}`);
  });
});

describe('isSecretName', () => {
  it.each([
    'GITHUB_TOKEN',
    'PGPASSWORD',
    'AWS_SECRET_ACCESS_KEY',
    'apiKey',
    'client_secret',
    'X-Auth',
    'db-pass',
    'accessToken',
  ])('%s is secret', (name) => expect(isSecretName(name)).toBe(true));
  it.each([
    'AUTHOR',
    'tokenizer',
    'MAX_TOKENS',
    'PWD',
    'AWS_ACCESS_KEY_ID',
    'TOKEN_FILE',
    'password-stdin',
    'PATH',
  ])('%s is not', (name) => expect(isSecretName(name)).toBe(false));
});

describe('redaction never leaves a generated secret in its output', () => {
  // Secrets mix digits and capitals, so no filler word or marker digest can contain one.
  const secret = fc
    .stringMatching(/^[A-Za-z0-9]{12,40}$/)
    .filter((s) => /[0-9]/.test(s) && /[A-Z]/.test(s) && /[a-z]/.test(s));
  const name = fc.constantFrom(
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'PGPASSWORD',
    'db_password',
    'Client_Secret',
    'OPENAI_API_KEY',
    'NPM_TOKEN',
  );
  const quote = fc.constantFrom('', '"', "'");
  const form: fc.Arbitrary<[string, string]> = fc.oneof(
    secret
      .map((s) => [s, `AKIA${s.toUpperCase().padEnd(16, '7').slice(0, 16)}`] as [string, string])
      .map(([, k]) => [k, k] as [string, string]),
    secret.map((s) => [`ghp_${s.padEnd(36, 'Q')}`, `ghp_${s.padEnd(36, 'Q')}`] as [string, string]),
    secret.map((s) => [s, `xoxb-${s}`] as [string, string]),
    secret.map((s) => [s, `sk-ant-${s.padEnd(20, 'Z')}`] as [string, string]),
    fc
      .tuple(secret, secret, secret)
      .map(([a, b, c]) => [`${a}.eyJ${b}.${c}`, `eyJ${a}.eyJ${b}.${c}`] as [string, string]),
    fc.tuple(name, quote, secret).map(([n, q, s]) => [s, `${n}=${q}${s}${q}`] as [string, string]),
    fc
      .tuple(
        fc.constantFrom('Authorization: Bearer ', 'authorization: Basic ', 'Authorization: token '),
        secret,
      )
      .map(([h, s]) => [s, `-H "${h}${s}"`] as [string, string]),
    fc
      .tuple(fc.constantFrom('--password=', '--api-key ', '--token ', '--client-secret='), secret)
      .map(([f, s]) => [s, `${f}${s}`] as [string, string]),
    secret.map((s) => [s, `https://user:${s}@host.example/x`] as [string, string]),
    fc
      .tuple(secret, secret)
      .map(
        ([a, b]) =>
          [a, `-----BEGIN RSA PRIVATE KEY-----\n${a}\n${b}\n-----END RSA PRIVATE KEY-----`] as [
            string,
            string,
          ],
      ),
    secret.map((s) => [s, `{"password": "${s}"}`] as [string, string]),
    secret.map((s) => [s, `\napi_token: ${s}\n`] as [string, string]),
  );
  const filler = fc
    .array(
      fc.constantFrom('git', 'status', 'echo', 'hello', 'npm', 'run', '&&', '|', '-la', 'cd', '/tmp', 'x=1'),
      { maxLength: 6 },
    )
    .map((w) => w.join(' '));
  const sep = fc.constantFrom(' ', '\n', '; ', ' && ');

  it('in text', () => {
    fc.assert(
      fc.property(filler, form, filler, sep, (before, [s, text], after, between) => {
        const out = redactText([before, text, after].join(between));
        expect(out).not.toContain(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('in JSON inputs, and leaves inputs without secrets exactly as they were', () => {
    fc.assert(
      fc.property(filler, form, sep, (plain, [s, text], between) => {
        const { value, pointers } = redactJson({ command: `${plain}${between}${text}`, description: plain });
        expect(JSON.stringify(value)).not.toContain(s);
        expect(pointers).toEqual(['/command']);
        expect(redactJson({ command: plain })).toEqual({ value: { command: plain }, pointers: [] });
      }),
      { numRuns: 1000 },
    );
  });
});
