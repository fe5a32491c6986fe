import type { Block } from './blocks.js';

/**
 * What each README block is, and the test file that runs it. A block of no kind, not marked
 * `<!-- not-a-test: reason -->`, fails test/readme/blocks.test.ts: the README gained an
 * example no test runs.
 */
export interface Kind {
  readonly name: string;
  /** The test file (from the repository root) that runs every block of this kind. */
  readonly file: string;
  readonly claims: (b: Block) => boolean;
}

const json = (b: Block): Record<string, unknown> | undefined => {
  if (b.lang !== 'json') return undefined;
  try {
    return JSON.parse(b.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

export const KINDS: readonly Kind[] = [
  {
    name: 'shell commands, each run through the real CLI in a scratch directory',
    file: 'test/readme/shell.test.ts',
    claims: (b) => b.lang === 'sh',
  },
  {
    name: "an agent's hook configuration, each hook command run on that agent's payload",
    file: 'test/readme/hook-config.test.ts',
    claims: (b) => json(b)?.hooks !== undefined,
  },
  {
    name: 'an MCP client configuration, the proxy it names run',
    file: 'test/readme/hook-config.test.ts',
    claims: (b) => json(b)?.mcpServers !== undefined,
  },
  {
    name: 'a policy file, loaded, its tests run, linted',
    file: 'test/readme.test.ts',
    claims: (b) => b.lang === 'yaml' && /^version: 1$/m.test(b.text) && !/^bundle:/m.test(b.text),
  },
  {
    name: 'a managed file naming a policy bundle, validated by the policy schema',
    file: 'test/readme/typescript.test.ts',
    claims: (b) => b.lang === 'yaml' && /^bundle:/m.test(b.text),
  },
  {
    name: 'TypeScript using the library, type-checked against it (and run where it needs no model)',
    file: 'test/readme/typescript.test.ts',
    claims: (b) => b.lang === 'ts' && /from 'toolgate'/.test(b.text),
  },
  {
    name: 'a catalogue entry, the same as in the source it names',
    file: 'test/readme/typescript.test.ts',
    claims: (b) => b.lang === 'ts' && /: CatalogueEntry = \{/.test(b.text),
  },
  {
    name: 'a terminal transcript, run and compared',
    file: 'test/readme/plain.test.ts',
    claims: (b) => b.lang === '' && b.text.startsWith('$ toolgate '),
  },
  {
    name: 'the source layout, every folder named there and every src/ folder listed',
    file: 'test/readme/plain.test.ts',
    claims: (b) => b.lang === '' && /^src\/\S+\/\s/.test(b.text),
  },
];

export const kindsOf = (b: Block): Kind[] => KINDS.filter((k) => k.claims(b));
