import { EFFECT_GROUPS, EFFECTS } from '../bash/catalogue/effect.js';
import { GROUPS, REGISTRY } from '../bash/catalogue/index.js';
import { catalogueTable, effectsNamed, renderCatalogue } from '../bash/catalogue/table.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';

const HELP = `usage: toolgate catalogue [--json] [--effect EFFECT] [COMMAND]

Prints what the Bash classifier knows about commands: each command's shape, every option with
its effect, what an option it does not list means, its traits and its examples by verdict.
--effect keeps the options with that effect: ${Object.keys(EFFECT_GROUPS).join(', ')}, or one of
${EFFECTS.join(', ')}.
Exit status: 0 when something was listed; 1 when COMMAND is not known (it is then treated as an
unknown program: not read-only); 2 on usage errors.
`;

export async function catalogueCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    json: { type: 'boolean' },
    effect: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError('at most one COMMAND');
  const effects = values.effect === undefined ? undefined : effectsNamed(values.effect);
  if (values.effect !== undefined && effects === undefined)
    throw new UsageError(`unknown effect "${values.effect}" (see toolgate catalogue --help)`);
  const command = positionals[0];
  const table = catalogueTable(REGISTRY, { command, effects }, GROUPS);
  io.stdout.write(values.json ? `${JSON.stringify(table, null, 2)}\n` : renderCatalogue(table));
  if (command !== undefined && table.entries.length === 0) {
    io.stderr.write(
      `toolgate catalogue: "${command}" is not a known command: it is analyzed as an unknown program (not read-only)\n`,
    );
    return 1;
  }
  return 0;
}
