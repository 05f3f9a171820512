// Long work a page may call off (opening a file, an export): the page names the job when it
// starts it (its jobId) and cancelJob aborts that job's signal. The work stops where it next
// looks at the signal, undoes what it began (a worker ended, a partial file removed) and rejects
// with JobCancelled, so whatever was there before stays as it was.

import { UserError } from '../errors/user-error.js';

/** The rejection of a job its page cancelled: one sentence, like every error a page sees. */
export class JobCancelled extends UserError {
  constructor(what: string) {
    super(`${what} was cancelled.`);
    this.name = 'JobCancelled';
  }
}

export class CancellableJobs {
  private readonly running = new Map<string, AbortController>();

  /** The signal of a job starting under `jobId` (none: a job nobody can cancel). */
  begin(jobId: string | undefined): AbortSignal | undefined {
    if (jobId === undefined) return undefined;
    if (this.running.has(jobId)) throw new UserError(`A job named ${jobId} is already running.`);
    const controller = new AbortController();
    this.running.set(jobId, controller);
    return controller.signal;
  }

  end(jobId: string | undefined): void {
    if (jobId !== undefined) this.running.delete(jobId);
  }

  /** Runs `work` as the job `jobId` (begin, then end however it ends). */
  async run<T>(jobId: string | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const signal = this.begin(jobId);
    try {
      return await work(signal);
    } finally {
      this.end(jobId);
    }
  }

  /** Cancels the job, if it still runs (a job that just ended is no error). */
  cancel(jobId: string): void {
    this.running.get(jobId)?.abort();
  }
}

/** Throws JobCancelled once `signal` was aborted. */
export function checkCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted === true) throw new JobCancelled(what);
}
