import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@crs/testing';

/** What one scenario reports to test/fault/summary.cjs (one JSON file per scenario). */
export interface ScenarioResult {
  scenario: string;
  mode: string;
  passed: boolean;
  seconds: number;
  /** Distinct communicationNumbers sent. */
  requests: number;
  /** HTTP requests, retries after 503 included. */
  httpRequests: number;
  accepted: number;
  statuses: Record<string, number>;
  faults: string[];
  lost: number;
  doubled: number;
  doneWithout200: number;
  callbacks: { distinct: number; missing: number; doubled: number; redeliveredAfterCrashWindow: number };
  /** Imports that asked for screening, the results checked (one per requested list), the known hits found. */
  screening: {
    customers: number;
    results: number;
    hits: number;
    missing: number;
    doubled: number;
    wrong: number;
  };
  /** Upstream operations sent (each published twice), archived through the ingress, and the archive requests. */
  operations: {
    sent: number;
    archived: number;
    httpRequests: number;
    statuses: Record<string, number>;
    lost: number;
    doubled: number;
    /** Operation documents compared with the fold of the operation log. */
    documents: number;
  };
  /** Documents of the projections compared with the replay (customers, assessments, screenings, communication_events). */
  projectionDocuments: number;
  projectionCounts: Record<string, number>;
  projectionDifferences: number;
  problems: string[];
}

export function resultsDir(): string {
  return process.env.FAULT_RESULTS_DIR ?? join(ROOT, '.local', 'fault-results');
}

export function writeResult(result: ScenarioResult): void {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${result.scenario}.json`), `${JSON.stringify(result, null, 2)}\n`);
}
