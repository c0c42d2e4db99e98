// The `shpa` command line.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { registerApply } from './apply.js';
import { registerAutoscale } from './autoscale.js';
import { addGlobalOptions, CliError, explainFailure } from './context.js';
import { registerCost } from './cost.js';
import { registerDelete } from './delete.js';
import { registerDemo } from './demo.js';
import { registerDiff } from './diff.js';
import { registerEvents } from './events.js';
import { registerHandover } from './handover.js';
import { registerImport } from './import.js';
import { registerInspect } from './inspect.js';
import { registerLocal } from './local.js';
import { registerManage } from './manage.js';
import { registerSimulate } from './simulate.js';

export function buildProgram(): Command {
  const program = addGlobalOptions(new Command('shpa'))
    .description('serverless Horizontal Pod Autoscaler for Amazon EKS')
    // kubectl's way: the error, then where the usage is, not the whole help.
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  registerApply(program);
  registerDiff(program);
  registerInspect(program);
  registerEvents(program);
  registerDelete(program);
  registerAutoscale(program);
  registerImport(program);
  registerHandover(program);
  registerManage(program);
  registerDemo(program);
  registerCost(program);
  registerLocal(program);
  registerSimulate(program);
  return program;
}

/** Runs the CLI; every failure becomes one line on stderr and exit code 1. */
export async function main(argv: string[]): Promise<void> {
  // The SDK's notice about future Node versions is not the user's business mid-command.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode;
      return;
    }
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
    process.stderr.write(`error: ${explainFailure(program, e)}\n`);
  }
}

const entry = process.argv[1] && realpathSync(process.argv[1]);
if (entry === fileURLToPath(import.meta.url)) await main(process.argv);
