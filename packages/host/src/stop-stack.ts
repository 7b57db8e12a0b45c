/** Something to stop: a consumer, a connection, a server, a background job. */
export type StopStep = () => Promise<void> | void;

/**
 * The stop steps of what a service started, pushed as each thing starts and run in reverse order of start.
 * Every step runs even when an earlier one fails (a consumer that cannot leave its group must not keep the
 * store open); the first failure is thrown once all have run and later ones go to `onError`. Steps run once:
 * unwinding empties the stack, and a second call while one is under way waits for the same run.
 */
export class StopStack {
  private readonly steps: StopStep[] = [];
  private unwinding: Promise<void> | undefined;

  constructor(private readonly onError: (err: unknown) => void = () => undefined) {}

  push(step: StopStep): void {
    this.steps.push(step);
  }

  get size(): number {
    return this.steps.length;
  }

  unwind(): Promise<void> {
    this.unwinding ??= this.runAll().finally(() => {
      this.unwinding = undefined;
    });
    return this.unwinding;
  }

  private async runAll(): Promise<void> {
    const failures: unknown[] = [];
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step();
      } catch (err) {
        failures.push(err);
      }
    }
    const [first, ...later] = failures;
    for (const err of later) this.onError(err);
    if (failures.length > 0) throw first;
  }
}
