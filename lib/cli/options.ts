// Option parsing and terminal checks shared by the commands.
import { InvalidArgumentError } from 'commander';

/** True where escape codes are welcome: a terminal, not CI, no NO_COLOR. */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.CI && process.env.NO_COLOR === undefined;
}

/** A commander parser for a number option ≥ min, the option named in its error. */
export function numberOption(name: string, min: number, integer = false) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${JSON.stringify(v)}`);
    }
    return n;
  };
}

