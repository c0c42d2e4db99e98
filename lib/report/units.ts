// One quantity format for every number a report shows (terminal, decision log, chart axes and
// legends): Kubernetes quantity style, binary suffixes for bytes, "%" for utilization.

/** What a series measures: utilization percent, bytes, CPU cores, or a plain count (messages, requests/s). */
export type Unit = '%' | 'bytes' | 'cores' | '';

/**
 * "92%", "820Mi", "1.18Gi", "250m", "2.5", "1.5k": three significant digits at most.
 * Self-contained, and without inner named functions (which transpilers wrap in helpers): the HTML
 * report runs this very function in the browser.
 */
export function formatAmount(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  let scaled = value;
  let suffix = '';
  if (unit === '%') {
    suffix = '%';
  } else if (unit === 'bytes') {
    const binary = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
    for (let k = binary.length; k >= 1; k--) {
      if (abs >= 1024 ** k) {
        scaled = value / 1024 ** k;
        suffix = binary[k - 1];
        break;
      }
    }
  } else if (abs > 0 && abs < 1) {
    scaled = value * 1000;
    suffix = 'm';
  } else {
    const decimal = ['k', 'M', 'G', 'T', 'P', 'E'];
    for (let k = decimal.length; k >= 1; k--) {
      if (abs >= 1000 ** k) {
        scaled = value / 1000 ** k;
        suffix = decimal[k - 1];
        break;
      }
    }
  }
  return `${Number(scaled.toPrecision(3))}${suffix}`;
}

/** How an axis or a column names the unit: "% of request", "bytes", "cores"; "" for a plain count. */
export function unitLabel(unit: Unit): string {
  return unit === '%' ? '% of request' : unit;
}
