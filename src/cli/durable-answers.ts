/**
 * Answers of `check --stdin`, printed in input order, each only once the record it depends on
 * is durable. The next lines are decided while earlier records are being flushed, so their
 * appends join the log's next batch (group commit: one fdatasync for many lines) instead of each
 * line waiting for a flush of its own. The guarantee is unchanged: no answer is printed before
 * its record (and every record before it) is on disk.
 *
 * Fail closed: once a record cannot be written, neither its answer nor any later one is
 * printed; `finish()` rethrows the failure.
 */
export class DurableAnswers {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private failure: { error: unknown } | undefined;

  /** At most `window` answers wait at a time (bounded memory whatever the input's length). */
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly window = 1024,
  ) {}

  /** Prints `text` after every earlier answer, and after `durable` (if given) resolves. */
  async push(text: string, durable?: Promise<unknown>): Promise<void> {
    durable?.catch(() => {}); // observed through the chain below (or superseded by the first failure)
    if (this.failure !== undefined) throw this.failure.error;
    const before = this.tail;
    this.waiting++;
    const printed = (async () => {
      try {
        await before;
        await durable;
        this.out.write(text);
      } catch (err) {
        this.failure ??= { error: err };
        throw err;
      } finally {
        this.waiting--;
      }
    })();
    printed.catch(() => {});
    this.tail = printed;
    if (this.waiting >= this.window) await this.settle();
  }

  /** Waits for every answer to be printed; throws the first failure, if any. */
  async finish(): Promise<void> {
    await this.settle();
  }

  private async settle(): Promise<void> {
    try {
      await this.tail;
    } catch {
      // the failure below is the first one, not necessarily this link's
    }
    if (this.failure !== undefined) throw this.failure.error;
  }
}
