// Timeouts that measure the server, not our own event loop. Held to Lambda's CPU share
// (0.29 vCPU at 512 MB) a busy cycle's event loop runs seconds behind: an answer that
// arrived long ago waits in the socket while the loop parses other answers, and a plain
// timer then blames the server for our backlog (and the cycle loses evaluations to its own
// client's timeouts). These timers count only the time the loop sat idle waiting for I/O,
// which is time the server, not this process, had the answer in hand. A server that truly
// hangs still times out: the loop goes idle waiting for it, and however busy the loop stays,
// twice the timeout of wall-clock time ends the wait (a backlog bounded by the gates is far
// shorter). The cycle's own deadline stays wall-clock time, which bounds everything else.
import { performance } from 'node:perf_hooks';

/** Checks are never re-armed closer than this: a loop that is busy for a while is not polled. */
const MIN_REARM_MS = 10;
/** However busy the loop, a wait ends after this many times its timeout of wall-clock time. */
const WALL_FACTOR = 2;

/**
 * Calls onTimeout once the event loop has been idle for `ms` since now, deciding only after
 * the loop has read what already arrived (a check-phase callback runs after the poll phase).
 * Returns a function that cancels it.
 */
export function serverTimeout(ms: number, onTimeout: () => void): () => void {
  const start = performance.eventLoopUtilization();
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let done = false;
  const arm = (wait: number) => {
    timer = setTimeout(() => {
      immediate = setImmediate(check);
    }, wait);
  };
  const check = () => {
    if (done) return;
    const idle = performance.eventLoopUtilization(start).idle;
    const wall = performance.now() - startedAt;
    if (idle >= ms || wall >= WALL_FACTOR * ms) {
      done = true;
      onTimeout();
    } else arm(Math.max(MIN_REARM_MS, Math.min(ms - idle, WALL_FACTOR * ms - wall)));
  };
  arm(ms);
  return () => {
    done = true;
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}

/** Idle event-loop milliseconds since a mark taken with serverClock(): the server's share of the time since. */
export function serverClock(): () => number {
  const start = performance.eventLoopUtilization();
  return () => performance.eventLoopUtilization(start).idle;
}
