/**
 * A queue between workers and the generator that hands their events out: workers push as
 * things happen (progress, a finished call); the consumer awaits the next one. Unbounded: a
 * call produces a bounded number of events, and the consumer is the one that started them.
 */
export class Channel<T> {
  private readonly items: T[] = [];
  private waiting: ((item: T) => void) | undefined;

  push(item: T): void {
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = undefined;
      waiter(item);
    } else {
      this.items.push(item);
    }
  }

  next(): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}
