// The `shpa` command line with `cost` registered, for the tests while lib/cli/main.ts does not
// register it yet: the program main.ts builds, failures reported as main() reports them.
import { CommanderError } from 'commander';
import { registerCost } from '../../lib/cli/cost.js';
import { CliError, explainFailure } from '../../lib/cli/context.js';
import { buildProgram } from '../../lib/cli/main.js';

const program = buildProgram();
if (!program.commands.some((c) => c.name() === 'cost')) registerCost(program);
try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exitCode = e.exitCode;
  else {
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
    process.stderr.write(`error: ${explainFailure(program, e)}\n`);
  }
}
