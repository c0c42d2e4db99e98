// The work queue port (lib/queue implements it): sends work messages.
// Every I/O method takes an optional AbortSignal: the cycle aborts what its deadline no longer has time for.


export interface WorkMessageEntry {
  /** The message's kind: events' evaluations go to the evaluator function, ticks and delayed re-sends to the work queue, so that events never delay a tick. */
  kind: 'tick' | 'evaluate';
  body: string;
  delaySeconds: number;
  groupId?: string;
}

/** Sends work messages (the SQS work queue). Throws UnsentMessagesError when it knows which were not sent. */
export interface WorkQueue {
  send(messages: WorkMessageEntry[], signal?: AbortSignal): Promise<void>;
}

/** Some messages of one send were not sent: each by its index in the list given, with why. */
export class UnsentMessagesError extends Error {
  constructor(
    message: string,
    readonly unsent: { index: number; error: string }[],
  ) {
    super(message);
    this.name = 'UnsentMessagesError';
  }
}
