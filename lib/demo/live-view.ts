// The demo's live output. On a terminal: scale events scroll, and a footer (one line
// per autoscaler and the progress bar) is redrawn in place each tick. Elsewhere (a
// pipe, CI): plain lines only, the events as they happen and the bar every 10%.
import { liveLine, progressBar, type LiveRow } from './live.js';

export interface LiveViewOptions {
  /** Redraw in place with escape codes. */
  tty: boolean;
  /** Terminal width: footer lines are cut to it so that redrawing stays aligned. */
  columns?: number;
  totalTicks: number;
}

const BAR_WIDTH = 30;

export class LiveView {
  private footerLines = 0;
  private lastDecile = -1;
  private readonly nameWidth: number;

  constructor(
    private readonly out: NodeJS.WritableStream,
    names: string[],
    private readonly opts: LiveViewOptions,
  ) {
    this.nameWidth = Math.max(...names.map((n) => n.length));
  }

  /** After tick `done` (1-based) at `time`: rows of every autoscaler, `changed` those worth a scrolled line. */
  tick(done: number, time: string, rows: LiveRow[], changed: boolean[], notes: string[] = []): void {
    const line = (r: LiveRow) => `${time}  ${liveLine(r, this.nameWidth)}`;
    const events = [...notes, ...rows.filter((_, i) => changed[i]).map(line)];
    if (this.opts.tty) {
      this.redraw(events, [...rows.map(line), progressBar(done, this.opts.totalTicks, BAR_WIDTH, time)]);
      return;
    }
    // The first sync shows every autoscaler, later ones what changed.
    const lines = this.lastDecile < 0 ? [...notes, ...rows.map(line)] : events;
    const decile = Math.floor((done / this.opts.totalTicks) * 10);
    if (decile !== this.lastDecile) lines.push(progressBar(done, this.opts.totalTicks, BAR_WIDTH, time, true));
    this.lastDecile = decile;
    if (lines.length > 0) this.out.write(`${lines.join('\n')}\n`);
  }

  private redraw(scroll: string[], footer: string[]): void {
    // Cursor up over the old footer, clear to the end of the screen, print the new lines and footer.
    const up = this.footerLines > 0 ? `\u001b[${this.footerLines}F\u001b[J` : '';
    this.out.write(`${up}${[...scroll, ...footer.map((l) => this.fit(l))].join('\n')}\n`);
    this.footerLines = footer.length;
  }

  private fit(line: string): string {
    const max = (this.opts.columns ?? 0) - 1;
    return max > 10 && line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }
}
