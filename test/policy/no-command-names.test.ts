import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/bash/catalogue/index.js';

/**
 * src/policy decides on the effects and traits src/bash reports, never on command names (#15):
 * a name written there is knowledge a reviewer of the catalogue cannot see. Every string,
 * template and regular-expression literal of src/policy is read (comments are not), and none may
 * be a command line that starts with a catalogue name, be a name, or (a regular expression)
 * name one as a word.
 */
const POLICY = path.resolve(import.meta.dirname, '../../src/policy');

/**
 * Words the policy uses for its own things, which are also commands' names. Each allows only the
 * whole literal (a command line that starts with one, `'read -r x'`, is still refused), or, with
 * a space in it, prose that starts with it.
 */
const POLICY_WORDS: Readonly<Record<string, string>> = {
  bash: "the kind of a Bash(...) rule's specifier",
  read: "a path rule's access (Read(...))",
  kill: 'the class of the tools that stop a shell (KillShell)',
  command: "the field of a Bash tool's input",
  file: 'a policy layer read from a file',
  dir: 'a policy directory',
  local: 'the local policy layer (.toolgate/local)',
  builtin: 'the built-in policy layer',
  info: "a lint finding's severity",
  type: "a tool input field's kind",
  skill: "the Skill tool's input field",
  git: "git's configuration directory in a path (~/.config/git/ignore), read for .gitignore",
  code: "the JavaScript tool's input field",
  'file system': 'a sentence about the file system (a read-only profile)',
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

interface Literal {
  readonly where: string;
  readonly text: string;
  readonly regex: boolean;
}

function literals(file: string): Literal[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Literal[] = [];
  const visit = (n: ts.Node): void => {
    // Module specifiers ('./rule.js', 'node:path') name files, not commands.
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) return;
    // Types ('source' | 'glob') name fields, and run nothing.
    if (ts.isLiteralTypeNode(n)) return;
    const at = () =>
      `${path.relative(POLICY, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
    if (ts.isRegularExpressionLiteral(n)) out.push({ where: at(), text: n.text, regex: true });
    else if (
      ts.isStringLiteral(n) ||
      ts.isNoSubstitutionTemplateLiteral(n) ||
      ts.isTemplateHead(n) ||
      ts.isTemplateMiddle(n) ||
      ts.isTemplateTail(n)
    )
      out.push({ where: at(), text: n.text, regex: false });
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Names with a letter: `.`, `:` and `[` are punctuation the policy writes in paths and text. */
const NAMES = new Set(
  CATALOGUE.flatMap((e) => [e.name, ...(e.aliases ?? [])]).filter((n) => /[A-Za-z]/.test(n)),
);

/** A regular expression's alternative or anchored word (`^(?:npm|yarn) `): how a pattern names a command. */
const ALTERNATIVE = /(?<=[\^(|:])[A-Za-z][A-Za-z0-9_+-]*(?=[|) $]|\\s)/g;

/** What in `l` is a command name, if anything. */
function commandNameIn(l: Literal): string | undefined {
  if (l.regex) return l.text.match(ALTERNATIVE)?.find((w) => NAMES.has(w));
  const first = /^[^\s]+/.exec(l.text)?.[0];
  if (first === undefined || !NAMES.has(first)) return undefined;
  const allowed = Object.keys(POLICY_WORDS).some(
    (w) => l.text === w || (w.includes(' ') && l.text.startsWith(`${w} `)),
  );
  return allowed ? undefined : first;
}

describe('src/policy names no command', () => {
  const files = sources(POLICY);
  const all = files.flatMap(literals);
  it('reads the sources', () => expect(files.length).toBeGreaterThan(20));
  it('has no catalogue name in a literal, but for its own words', () => {
    const found = all.flatMap((l) => {
      const n = commandNameIn(l);
      return n === undefined ? [] : [`${l.where} ${n}: ${JSON.stringify(l.text)}`];
    });
    expect(found).toEqual([]);
  });
  it('catches a command line, a listed name and a regular expression', () => {
    const lit = (text: string, regex = false): Literal => ({ where: 'x', text, regex });
    expect(commandNameIn(lit('python3 -c print(1)'))).toBe('python3');
    expect(commandNameIn(lit('rmdir'))).toBe('rmdir');
    expect(commandNameIn(lit('read -r x'))).toBe('read');
    expect(commandNameIn(lit('^(?:npm|yarn) test$', true))).toBe('npm');
    expect(commandNameIn(lit('read'))).toBeUndefined();
    expect(commandNameIn(lit(' at '))).toBeUndefined();
    expect(commandNameIn(lit('^\\/(usr\\/)?(local\\/)?s?bin', true))).toBeUndefined();
  });
  it('allows only words the policy still uses', () => {
    const texts = all.map((l) => l.text);
    const used = (w: string) => texts.some((t) => t === w || (w.includes(' ') && t.startsWith(`${w} `)));
    expect(Object.keys(POLICY_WORDS).filter((w) => !used(w))).toEqual([]);
  });
});
