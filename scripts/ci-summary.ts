/**
 * The last lines of `.ci/run`: what the JSON report of the test run (test/support/ci-json-reporter.ts)
 * counts, ending with one line `N passed, N failed`, and exit 1 on any failure whatever vitest's
 * own exit code was. Failed are: failed tests, test files that failed outside any test (an import
 * or a hook), unhandled errors, and a run that did not finish; a missing or unreadable report, or
 * one with no passed test, is a failure too.
 *
 * Usage: tsx scripts/ci-summary.ts <report.json>
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
  ok: boolean;
}

function summarize(reportText: string | undefined): Summary {
  let report: Report;
  try {
    if (reportText === undefined) throw new Error('no report');
    report = JSON.parse(reportText) as Report;
    if (!Array.isArray(report.testResults) || typeof report.numPassedTests !== 'number') throw new Error('not a vitest JSON report');
  } catch (error) {
    return { ok: false, lines: [`the test report could not be read (${error instanceof Error ? error.message : String(error)})`, '0 passed, 1 failed'] };
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
  lines.push(`${report.numPassedTests} passed, ${failed} failed`);
  return { ok: failed === 0 && report.numPassedTests > 0, lines };
}

function readReport(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const path = process.argv[2];
if (!path) throw new Error('usage: tsx scripts/ci-summary.ts <report.json>');
const summary = summarize(readReport(path));
for (const line of summary.lines) console.log(line);
process.exitCode = summary.ok ? 0 : 1;
