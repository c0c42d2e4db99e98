// `shpa simulate`. CONTRACT (owned by the demo/simulator helper).
import type { Command } from 'commander';

export function registerSimulate(program: Command): void {
  program.command('simulate').description('replay a metric trace through an HPA (not implemented yet)');
}
