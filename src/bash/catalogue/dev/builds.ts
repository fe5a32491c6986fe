import type { CatalogueEntry, Examples } from '../entry.js';

/**
 * Build tools, test runners, linters and other programs whose work is code the line does not
 * show: a build file's recipes, test files, a configuration that is JavaScript, plugins.
 */

/** What only asks: the version or help, as an option or a word. */
const ASKS = ['--version', '-V', '--help', '-h', 'version', 'help'];

function program(
  name: string,
  summary: string,
  runs: string,
  examples: Examples,
  more: Partial<Pick<CatalogueEntry, 'aliases'>> & {
    readonly asks?: readonly string[];
    readonly downloads?: string;
  } = {},
): CatalogueEntry {
  return {
    name,
    aliases: more.aliases,
    summary,
    shape: { kind: 'program', runs, asks: more.asks ?? ASKS, downloads: more.downloads },
    unknownOptions: 'fail',
    examples,
  };
}

export const BUILDS: readonly CatalogueEntry[] = [
  program(
    'make',
    'build tools: run the recipes of a build file (even make -n runs $(shell ...) and + lines)',
    'runs the recipes of a build file the line does not show',
    {
      readOnly: ['make --version', 'cmake --help'],
      destructive: ['make', 'make -n install', 'cmake --build build', 'gradle test', 'mvn package'],
    },
    { aliases: ['gmake', 'cmake', 'ninja', 'meson', 'bazel', 'mvn', 'gradle', 'ant', 'rake'] },
  ),
  program(
    'gcc',
    'compilers: compile and link (plugins, specs files and linker scripts can run code)',
    'compiles and links, writing its outputs',
    {
      readOnly: ['gcc --version', 'rustc --version', 'cc --help'],
      destructive: ['gcc -o a a.c', 'rustc main.rs', 'clang -c x.c', 'gcc -fplugin=./p.so x.c'],
    },
    { aliases: ['cc', 'c++', 'g++', 'clang', 'clang++', 'rustc'] },
  ),
  program(
    'gpg',
    'OpenPGP: encrypts, signs, manages keyrings',
    'reads and writes keyrings and can reach keyservers',
    {
      readOnly: ['gpg --version'],
      destructive: ['gpg --import key.asc', 'gpg -d secret.gpg', 'gpg --recv-keys ABCD'],
    },
  ),
  program('eslint', 'lints JavaScript', 'loads its configuration (JavaScript) and may fix files', {
    readOnly: ['eslint --version'],
    destructive: ['eslint .', 'eslint --fix src'],
  }),
  program('prettier', 'formats source files', 'loads plugins and configuration and may rewrite files', {
    readOnly: ['prettier --version'],
    destructive: ['prettier --write .', 'prettier --check src'],
  }),
  program(
    'vitest',
    'test runners: run test files, which are code',
    'runs tests',
    {
      readOnly: ['vitest --version', 'pytest --help'],
      destructive: ['vitest run', 'jest', 'pytest -q tests/', 'tox -e py312', 'mocha test/'],
    },
    { aliases: ['jest', 'mocha', 'pytest', 'tox'] },
  ),
  program(
    'npx',
    'runs a package binary, downloading it if needed',
    'runs a package binary the line does not show',
    { readOnly: ['npx --version'], destructive: ['npx vite', 'bunx cowsay hi', 'npx -y some-tool'] },
    { aliases: ['bunx'], downloads: 'may download the package it runs' },
  ),
  program(
    'uv',
    'Python project tooling: installs packages and runs code',
    'runs Python tooling that installs packages and runs code',
    { destructive: ['uv run main.py', 'uv pip install x', 'uv --version'] },
    { aliases: ['poetry'], asks: [] },
  ),
  program(
    'dc',
    'the desk calculator',
    'can run shell commands with !',
    { destructive: ["dc -e '!id'"] },
    { asks: [] },
  ),
  program('code', 'Visual Studio Code', 'opens an editor', { destructive: ['code .'] }, { asks: [] }),
];
