// `shpa demo`. CONTRACT (owned by the demo/simulator helper).
import type { Command } from 'commander';

export function registerDemo(program: Command): void {
  program.command('demo').description('run the autoscaler locally on embedded parts (not implemented yet)');
}
