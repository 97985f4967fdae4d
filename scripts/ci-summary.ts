/**
 * The last lines of `.ci/run`: what the JSON reports of its test runs (test/support/ci-json-reporter.ts)
 * count, each run's failures named, ending with one line `N passed, N failed` summed over all
 * the reports, and exit 1 on any failure whatever vitest's own exit codes were. Failed are: failed tests, test files that failed outside any test (an import
 * or a hook), unhandled errors, and a run that did not finish; a missing or unreadable report, or
 * one with no passed test, is a failure too.
 *
 * Usage: tsx scripts/ci-summary.ts <report.json>...
 */
import { readFileSync } from 'node:fs';

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: Array<{ name: string; status: string; message: string; assertionResults: Array<{ status: string }> }>;
  runEndReason?: string;
  numUnhandledErrors?: number;
}

interface Summary {
  lines: string[];
  passed: number;
  failed: number;
}

function summarize(reportText: string | undefined): Summary {
  let report: Report;
  try {
    if (reportText === undefined) throw new Error('no report');
    report = JSON.parse(reportText) as Report;
    if (!Array.isArray(report.testResults) || typeof report.numPassedTests !== 'number') throw new Error('not a vitest JSON report');
  } catch (error) {
    return { passed: 0, failed: 1, lines: [`the test report could not be read (${error instanceof Error ? error.message : String(error)})`] };
  }
  const lines: string[] = [];
  const filesFailedOutsideTests = report.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'));
  for (const f of filesFailedOutsideTests) lines.push(`failed outside any test: ${f.name}: ${f.message}`);
  const unhandled = report.numUnhandledErrors ?? 0;
  if (unhandled > 0) lines.push(`${unhandled} unhandled error(s) reported by the runner`);
  const interrupted = report.runEndReason === 'interrupted' ? 1 : 0;
  if (interrupted) lines.push('the run was interrupted before every test ran');
  const skipped = report.numPendingTests + report.numTodoTests;
  if (skipped > 0) lines.push(`${skipped} skipped`);
  const failed = report.numFailedTests + filesFailedOutsideTests.length + unhandled + interrupted;
  // A run that passed nothing did not run: a failure too.
  return { passed: report.numPassedTests, failed: report.numPassedTests === 0 ? Math.max(failed, 1) : failed, lines };
}

function readReport(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const paths = process.argv.slice(2);
if (paths.length === 0) throw new Error('usage: tsx scripts/ci-summary.ts <report.json>...');
let passed = 0;
let failed = 0;
for (const path of paths) {
  const summary = summarize(readReport(path));
  for (const line of summary.lines) console.log(`${path}: ${line}`);
  console.log(`${path}: ${summary.passed} passed, ${summary.failed} failed`);
  passed += summary.passed;
  failed += summary.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
