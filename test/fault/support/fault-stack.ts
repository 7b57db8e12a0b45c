import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@crs/testing';

const run = promisify(execFile);

export type StackComponent = 'kafka' | 'registry' | 'ferretdb';

/**
 * The fault suite's own stack (test/fault/run.sh brings it up with STACK_LOCAL_DIR and other ports).
 * Faults are injected only there: the shared stack at .local/ serves other suites and is never touched.
 */
export function faultStackDir(): string {
  const dir = process.env.STACK_LOCAL_DIR;
  if (!dir || resolve(dir) === resolve(ROOT, '.local')) {
    throw new Error(
      'STACK_LOCAL_DIR must name the fault stack (run the suite through test/fault/run.sh), never the shared .local stack',
    );
  }
  for (const name of ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'MONGODB_URI']) {
    if (!process.env[name])
      throw new Error(`${name} must point at the fault stack (test/fault/run.sh exports it)`);
  }
  return dir;
}

/** The connection settings every service of the fault system gets (they override .local/stack.env). */
export function faultStackEnv(): Record<string, string> {
  faultStackDir();
  return {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
    SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
    MONGODB_URI: process.env.MONGODB_URI!,
  };
}

/** `stack.sh stop|kill|start <component>` on the fault stack only. */
export async function stackCommand(
  command: 'stop' | 'kill' | 'start',
  component: StackComponent,
): Promise<void> {
  faultStackDir();
  await run('bash', [resolve(ROOT, 'deploy/local/stack.sh'), command, component], {
    env: process.env,
    timeout: 180000,
  });
}
