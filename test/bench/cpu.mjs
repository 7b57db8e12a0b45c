// Where the cores go during a bench phase: CPU seconds per process of the local stack (Kafka, the
// registry, FerretDB), per service of the namespace under test, and the load generator itself, read from
// /proc (Linux only; elsewhere the breakdown is empty). Printed beside each phase of `npm run bench pipeline`.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

function label(pid, args) {
  if (pid === process.pid) return 'load generator';
  const service = /services\/([a-z-]+)\/dist\/main\.js/.exec(args);
  if (service) return service[1];
  if (args.includes('crs.stack.home') && args.includes('apicurio')) return 'registry';
  if (args.includes('crs.stack.home')) return 'kafka';
  if (/ferretdb/.test(args)) return 'ferretdb';
  if (/postgres/.test(args)) return 'postgresql';
  return undefined;
}

/** The processes of the stack, the namespace's services and this one, by label: [[label, pid]]. */
function labelled() {
  const out = [];
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    try {
      const name = label(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
      if (name) out.push([name, d]);
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** A process's CPU seconds so far (utime + stime); `<pid>/task/<tid>` gives one of its threads'. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** CPU seconds so far per label. */
export function cpuSnapshot() {
  const out = new Map();
  for (const [name, pid] of labelled()) {
    try {
      out.set(name, (out.get(name) ?? 0) + cpuSeconds(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** Cores used per label between two snapshots, busiest first: [[label, cores]]. */
export function coresBetween(before, after, seconds) {
  const rows = [];
  for (const [name, s] of after) {
    const used = (s - (before.get(name) ?? 0)) / seconds;
    if (used >= 0.005) rows.push([name, Math.round(used * 100) / 100]);
  }
  return rows.sort((a, b) => b[1] - a[1]);
}

/**
 * What each labelled process has written so far through write system calls (`wchar` of /proc/<pid>/io:
 * for FerretDB on SQLite, its WAL and checkpoints) and its CPU seconds: label -> { bytes, cpu }.
 */
export function ioSnapshot() {
  const out = new Map();
  for (const [name, pid] of labelled()) {
    try {
      const wchar = Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
      if (!Number.isFinite(wchar)) continue;
      const prev = out.get(name);
      out.set(name, { bytes: (prev?.bytes ?? 0) + wchar, cpu: (prev?.cpu ?? 0) + cpuSeconds(pid) });
    } catch {
      // the process ended meanwhile, or its io is not readable
    }
  }
  return out;
}

/**
 * The broker's CPU seconds so far, the whole process's and its JIT compiler threads' (`C1/C2 CompilerThread`,
 * from /proc/<pid>/task): a freshly started broker spends about half its CPU compiling for its first five
 * minutes of load (decision 0080), so a figure of the broker's taken then is a cold one. Undefined where
 * /proc or the broker is not there. A compiler thread the JVM ends meanwhile (it starts and ends them as
 * the work needs) drops out of `compiling`, so a share between two snapshots can read low, never high.
 */
export function brokerCompileSnapshot() {
  const kafka = labelled().find(([name]) => name === 'kafka');
  if (!kafka) return undefined;
  const [, pid] = kafka;
  let compiling = 0;
  try {
    const cpu = cpuSeconds(pid);
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (/^C\d CompilerThre/.test(readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8')))
          compiling += cpuSeconds(`${pid}/task/${task}`);
      } catch {
        // the thread ended meanwhile
      }
    }
    return { pid, cpu, compiling };
  } catch {
    return undefined;
  }
}

/** The share of the broker's CPU that went to compiling between two snapshots (undefined if it restarted). */
export function brokerCompilingShare(before, after) {
  if (!before || !after || before.pid !== after.pid || after.cpu <= before.cpu) return undefined;
  const share = Math.max(0, after.compiling - before.compiling) / (after.cpu - before.cpu);
  return Math.round(Math.min(1, share) * 100) / 100;
}
