import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';

const HELP = `usage: toolgate demo [--dir D] [--no-color] [--wide]

Runs a scripted agent session (~30 tool calls) through the whole pipeline on the embedded
default policy: a loopback model drives the real Anthropic SDK agent loop; every call is
validated, decided, sandboxed and logged; asks go to a scripted user who approves edits in
src/ and refuses the rest. Prints what happened to each call, then verifies the decision log.
Where bubblewrap cannot run, it says so first: the allowed commands then show their decision
only ("allowed, no jail"), since the default policy runs none of them unjailed.
The table fits the terminal (else $COLUMNS, else 120 columns), reasons wrapped; --wide prints
every call and reason whole, one line a row.
Exit status 0 when the log verifies.
`;

export async function demoCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCliArgs(argv, {
    dir: { type: 'string' },
    'no-color': { type: 'boolean' },
    wide: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const { runDemo } = await import('../demo/run.js');
  const summary = await runDemo({
    out: io.stdout,
    color: io.isTTY && !values['no-color'] && io.env.NO_COLOR === undefined,
    ...(values.dir ? { dir: values.dir } : {}),
    width: widthOf(io),
    wide: values.wide === true,
  });
  return summary.logIntact ? 0 : 1;
}

/** The terminal's columns; else $COLUMNS, as `ls` and friends read it; else 120. */
function widthOf(io: CliIO): number {
  const columns = (io.stdout as { columns?: unknown }).columns;
  if (io.isTTY && typeof columns === 'number' && columns > 0) return columns;
  const env = Number(io.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : 120;
}
