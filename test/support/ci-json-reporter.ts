/**
 * vitest's JSON report plus what it leaves out: the unhandled errors of the run (an error thrown
 * outside any test, which vitest counts as a failure but the JSON report does not mention) and
 * why the run ended. `.ci/run` decides from this file (scripts/ci-summary.ts).
 */
import type { SerializedError } from 'vitest';
import type { TestModule, TestRunEndReason } from 'vitest/node';
import { JsonReporter } from 'vitest/node';

export default class CiJsonReporter extends JsonReporter {
  #unhandled: ReadonlyArray<SerializedError> = [];
  #reason: TestRunEndReason = 'passed';

  override async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
    reason: TestRunEndReason = 'passed',
  ): Promise<void> {
    this.#unhandled = unhandledErrors;
    this.#reason = reason;
    await super.onTestRunEnd(testModules);
  }

  override async writeReport(report: string): Promise<void> {
    const extended = {
      ...(JSON.parse(report) as object),
      runEndReason: this.#reason,
      numUnhandledErrors: this.#unhandled.length,
      unhandledErrors: this.#unhandled.map((e) => e.stack ?? e.message),
    };
    await super.writeReport(JSON.stringify(extended));
  }
}
