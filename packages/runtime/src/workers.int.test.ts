import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

/**
 * The worker pool (INGRESS_WORKERS, docs/decisions/0056) with real processes: a fixture service on the
 * built package (fixtures/worker-pool-service.cjs). No stack needed.
 */
const FIXTURE = path.resolve(__dirname, '../fixtures/worker-pool-service.cjs');

/** Retries `probe` until it stops throwing (30 s). */
async function eventually(probe: () => unknown): Promise<void> {
  const deadline = Date.now() + 30000;
  for (;;) {
    try {
      await probe();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** One request on a connection of its own (no keep-alive: the next may land on another worker). */
function get(port: number, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('runWorkerPool: processes sharing one port', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  async function startPool(workers: number, extra: Record<string, string> = {}) {
    const port = await freePort();
    child = spawn(process.execPath, [FIXTURE], {
      env: { ...process.env, WORKERS: String(workers), PORT: String(port), ...extra },
      stdio: 'ignore',
      // A process group of its own, so a test can signal the group as a terminal's Ctrl-C does.
      detached: true,
    });
    await eventually(async () => expect((await get(port, '/pid')).status).toBe(200));
    return { port, primary: child };
  }

  async function workerPids(port: number, requests = 16): Promise<Set<number>> {
    const pids = new Set<number>();
    for (let i = 0; i < requests; i++) pids.add(Number((await get(port, '/pid')).body));
    return pids;
  }

  /** The pids of the pool's two workers, once both take connections (the primary hands them out in turn). */
  async function bothWorkers(port: number): Promise<Set<number>> {
    let pids = new Set<number>();
    await eventually(async () => {
      pids = await workerPids(port);
      expect(pids.size).toBe(2);
    });
    return pids;
  }

  it('serves from every worker, aggregates their metrics, replaces a worker that exits and stops them all on SIGTERM', async () => {
    const { port, primary } = await startPool(2);
    // Both workers take connections; the primary serves none.
    const pids = await bothWorkers(port);
    expect(pids.has(primary.pid!)).toBe(false);

    // A scrape lands on one worker and reports the service: every worker's counter, summed.
    for (let i = 0; i < 10; i++) expect((await get(port, '/hit')).status).toBe(200);
    const metrics = (await get(port, '/metrics')).body;
    expect(metrics).toMatch(/^fixture_hits_total\{service="pool-fixture"\} 10$/m);

    // A worker that crashes is replaced: the pool serves from two workers again, one of them new.
    const victim = Number((await get(port, '/exit')).body);
    expect(pids.has(victim)).toBe(true);
    await eventually(() => expect(alive(victim)).toBe(false));
    await eventually(async () => {
      const now = await workerPids(port);
      expect(now.size).toBe(2);
      expect(now.has(victim)).toBe(false);
    });
    const workers = await workerPids(port);

    // SIGTERM: every worker stops gracefully, then the primary exits 0.
    primary.kill('SIGTERM');
    expect(await exitOf(primary)).toBe(0);
    for (const pid of workers) await eventually(() => expect(alive(pid)).toBe(false));
  });

  it('stops with exit code 1 when workers keep exiting (more than maxRestarts in the window)', async () => {
    const { port, primary } = await startPool(2, { MAX_RESTARTS: '0' });
    await get(port, '/exit').catch(() => undefined);
    expect(await exitOf(primary)).toBe(1);
  });

  it('Ctrl-C (SIGINT to the whole process group) stops every worker once, gracefully', async () => {
    // Each worker's shutdown takes 500 ms: the primary's SIGTERM arrives while it is under way.
    const { port, primary } = await startPool(2, { STOP_DELAY_MS: '500' });
    const pids = await bothWorkers(port);
    process.kill(-primary.pid!, 'SIGINT');
    // 0: every worker stopped through its own shutdown (a second signal would have made it exit 1).
    expect(await exitOf(primary)).toBe(0);
    for (const pid of pids) await eventually(() => expect(alive(pid)).toBe(false));
  });

  it('workers exit at once when their primary is killed, and the port is free again', async () => {
    const { port, primary } = await startPool(2);
    const pids = await bothWorkers(port);
    primary.kill('SIGKILL');
    await exitOf(primary);
    for (const pid of pids) await eventually(() => expect(alive(pid)).toBe(false));
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it('with one worker runs the service in the process itself', async () => {
    const { port, primary } = await startPool(1);
    expect(await workerPids(port, 4)).toEqual(new Set([primary.pid]));
    // Its metrics are its own registry's.
    await get(port, '/hit');
    expect((await get(port, '/metrics')).body).toMatch(/^fixture_hits_total\{service="pool-fixture"\} 1$/m);
    primary.kill('SIGTERM');
    expect(await exitOf(primary)).toBe(0);
  });
});
