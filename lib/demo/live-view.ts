// The demo's live output. On a terminal: scale events scroll, and a footer (one line
// per autoscaler and the progress bar) is redrawn in place each tick. Elsewhere (a
// pipe, CI): plain lines only, the events as they happen and the bar every 10%.
import { liveLine, progressBar, type LiveRow } from '../sim/live.js';

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
    const events = [...notes, ...rows.filter((_, i) => changed[i]).map((r) => `${time}  ${liveLine(r, this.nameWidth)}`)];
    if (this.opts.tty) {
      const footer = [...rows.map((r) => `${time}  ${liveLine(r, this.nameWidth)}`), progressBar(done, this.opts.totalTicks, BAR_WIDTH, time)];
      this.redraw(events, footer);
      return;
    }
    const first = this.lastDecile < 0;
    const decile = Math.floor((done / this.opts.totalTicks) * 10);
    const lines = first ? rows.map((r) => `${time}  ${liveLine(r, this.nameWidth)}`) : events;
    if (decile !== this.lastDecile) lines.push(progressBar(done, this.opts.totalTicks, BAR_WIDTH, time, true));
    this.lastDecile = decile;
    if (lines.length > 0) this.out.write(`${lines.join('\n')}\n`);
  }

  /** A line outside the tick rhythm (e.g. an error), kept above the footer. */
  note(line: string): void {
    if (this.opts.tty && this.footerLines > 0) this.redraw([line], undefined);
    else this.out.write(`${line}\n`);
  }

  /** Leaves the last footer on screen and moves below it. */
  end(): void {
    this.footerLines = 0;
  }

  private footer: string[] = [];

  private redraw(scroll: string[], footer: string[] | undefined): void {
    if (footer) this.footer = footer.map((l) => this.fit(l));
    // Cursor up over the old footer, clear to the end of the screen, print the new lines and footer.
    const up = this.footerLines > 0 ? `\u001b[${this.footerLines}F\u001b[J` : '';
    const body = [...scroll, ...this.footer];
    this.out.write(`${up}${body.join('\n')}\n`);
    this.footerLines = this.footer.length;
  }

  private fit(line: string): string {
    const max = (this.opts.columns ?? 0) - 1;
    return max > 10 && line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }
}
