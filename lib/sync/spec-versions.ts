// The spec checks of one cycle (is the spec still the one loaded, just before a rescale is
// recorded?), asked one autoscaler at a time and sent to the store together: those that ask in
// the same turn of the event loop share one read. In a cycle where every autoscaler rescales,
// that is a read per batch instead of a DynamoDB call per autoscaler, each of which costs a
// worker held to its CPU share about as much as the rest of the autoscaler's evaluation.
import type { AutoscalerStore } from './ports/autoscaler-store.js';

interface Waiting {
  namespace: string;
  name: string;
  resolve: (v: string | undefined) => void;
  reject: (e: unknown) => void;
}

export class SpecVersions {
  private waiting: Waiting[] = [];

  constructor(
    private readonly store: Pick<AutoscalerStore, 'specVersions'>,
    private readonly cluster: string,
    private readonly signal: AbortSignal,
  ) {}

  /** The spec item's version now (undefined: deleted). */
  of(namespace: string, name: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      // After the I/O callbacks of this turn: the checks they lead to go in the same read.
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ namespace, name, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.store.specVersions(this.cluster, batch, this.signal).then(
      (versions) => batch.forEach((w) => w.resolve(versions.get(`${w.namespace}/${w.name}`))),
      (e: unknown) => batch.forEach((w) => w.reject(e)),
    );
  }
}
