import { INTERPRETERS } from './dev/interpreters.js';

/**
 * Command lines that run code the line does not show, for the policy's lint to try against a
 * Bash allow rule's wildcard (src/policy/lint.ts): a rule that matches one grants arbitrary code
 * execution. They live here, with the rest of the command knowledge, so src/policy names no
 * command. Wrappers whose inner commands the policy decides on their own (bash -c, eval, sudo,
 * xargs, find -exec, env, git -c aliases, awk system()) are not here: allowing them does not
 * allow what they run. test/bash/catalogue/code-runners.test.ts holds each line to a verdict
 * that is not read-only.
 */
export interface CodeProbe {
  /** A concrete line, argv joined by spaces (what a Bash rule matches). */
  readonly line: string;
  /** Why allowing it allows any code: the end of "allows LINE: WHY". */
  readonly why: string;
}

const SCRIPT = 'runs a script file, whose commands toolgate never sees';
const INTERPRETER = 'an interpreter runs whatever code it is given';
const PACKAGES = 'a package manager runs any package, binary or script it is named';

const probes = (why: string, lines: readonly string[]): CodeProbe[] => lines.map((line) => ({ line, why }));

export const CODE_RUNNER_PROBES: readonly CodeProbe[] = [
  ...probes(
    SCRIPT,
    ['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'source', '.'].map((sh) => `${sh} ./script.sh`),
  ),
  ...probes(INTERPRETER, [
    'python -c print(1)',
    'python3 -c print(1)',
    'python3 ./x.py',
    'node -e 1',
    'node ./x.js',
    'deno eval 1',
    'bun -e 1',
    'ruby -e 1',
    'perl -e 1',
    'php -r 1',
    'lua -e 1',
    'Rscript -e 1',
    'pwsh -c 1',
    'osascript -e 1',
    'tsx ./x.ts',
    'ts-node ./x.ts',
    'java -jar x.jar',
  ]),
  // Every other name of an interpreter entry: a script operand is code the line does not show.
  ...probes(
    INTERPRETER,
    INTERPRETERS.flatMap((e) => [e.name, ...(e.aliases ?? [])]).map((n) => `${n} ./script`),
  ),
  ...probes(PACKAGES, [
    'npx some-package',
    'npm exec some-package',
    'npm run any-script',
    'pnpm dlx some-package',
    'pnpm exec some-binary',
    'pnpm run any-script',
    'yarn dlx some-package',
    'yarn run any-script',
    'yarn any-script',
    'bunx some-package',
    'bun run any-script',
    'uvx some-package',
    'uv run ./x.py',
    'pipx run some-package',
    'poetry run ./x',
    'go run ./x.go',
    'cargo run --manifest-path ./x/Cargo.toml',
  ]),
  { line: 'make -f ./x.mk', why: 'make runs the recipes of any makefile it is given' },
  {
    line: 'docker run -v /:/host some-image',
    why: 'docker runs any image, and a mount of / gives it the host',
  },
  { line: './x', why: 'it allows running any program' },
];

/** Lines that install a package: its install scripts are code from the network. */
export const INSTALLER_PROBES: readonly string[] = ['npm install some-package', 'pip install some-package'];

/**
 * The project's own scripts (npm test, npm run build, npm ci, make test), as an allow rule's
 * text without its trailing wildcard: whatever package.json or the Makefile says runs.
 */
export const PROJECT_SCRIPT: RegExp =
  /^(?:(?:npm|pnpm|yarn|bun) (?:test|start|ci|install|run(?:-script)? [A-Za-z0-9:_.-]+)|make(?: [A-Za-z0-9_.-]+)*)$/;
