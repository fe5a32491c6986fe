import { classifyBash } from '../bash/classify.js';
import type { BashFacts } from '../bash/facts.js';
import { commandLineOf, forEachJsonLine, parseCliArgs, splitCommandWords } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate classify [--json] [--] COMMAND...
       toolgate classify --stdin        (JSON Lines in: {"command": "..."}; out: one result per line)

Says whether a Bash command line is read-only, concurrency-safe and destructive, and why.
One word is a command line as typed ('git log | head -5'); several are the words of one
command (toolgate classify ls -la).
Exit status: 0 when the line (every line, with --stdin) was classified; 1 on bad input lines; 2 on usage errors.
`;

const OPTIONS = {
  json: { type: 'boolean' },
  stdin: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function classifyCommand(argv: string[], io: CliIO): Promise<number> {
  // toolgate's options come first; from the first other word on, the words are the command
  // (`toolgate classify ls -la`).
  const { own, words: positionals } = splitCommandWords(argv, OPTIONS);
  const { values } = parseCliArgs(own, OPTIONS);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.stdin) {
    if (positionals.length > 0) throw new UsageError('--stdin takes no COMMAND argument');
    return classifyStream(io);
  }
  if (positionals.length === 0) throw new UsageError('missing COMMAND (or use --stdin)');
  const command = commandLineOf(positionals);
  const facts = classifyBash(command);
  io.stdout.write(values.json ? `${JSON.stringify(result(command, facts))}\n` : describe(command, facts));
  return 0;
}

function result(command: string, facts: BashFacts) {
  return {
    command,
    readOnly: facts.readOnly,
    concurrencySafe: facts.concurrencySafe,
    destructive: facts.destructive,
    reasons: facts.reasons,
  };
}

function describe(command: string, facts: BashFacts): string {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const lines = [
    // A control character (a carriage return, a vertical tab) would vanish or rewrite the
    // terminal line; shown escaped, the reader sees what the classifier saw.
    CONTROL.test(command) ? JSON.stringify(command) : command,
    `  read-only:        ${yes(facts.readOnly)}`,
    `  concurrency-safe: ${yes(facts.concurrencySafe)}`,
    `  destructive:      ${yes(facts.destructive)}`,
  ];
  if (facts.reasons.length > 0) lines.push('  because:', ...facts.reasons.map((r) => `    - ${r}`));
  return `${lines.join('\n')}\n`;
}

async function classifyStream(io: CliIO): Promise<number> {
  let bad = 0;
  await forEachJsonLine(
    io.stdin,
    (value, n) => {
      const command = (value as { command?: unknown } | null)?.command;
      if (typeof command !== 'string') {
        bad++;
        io.stdout.write(`${JSON.stringify({ line: n, error: 'expected {"command": "<string>"}' })}\n`);
        return;
      }
      io.stdout.write(`${JSON.stringify(result(command, classifyBash(command)))}\n`);
    },
    (n, message) => {
      bad++;
      io.stdout.write(`${JSON.stringify({ line: n, error: message })}\n`);
    },
  );
  return bad > 0 ? 1 : 0;
}

/** Any C0 control character but newline and tab, and DEL. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
