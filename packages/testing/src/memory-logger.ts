import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@crs/runtime';

/** One line the logger wrote, parsed: pino's numeric level, the message and the bound fields. */
export interface LoggedRecord {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A service logger that writes to memory: every record it would have logged, parsed, in order. */
export function memoryLogger(service: string, level = 'info'): { logger: Logger; records: LoggedRecord[] } {
  const records: LoggedRecord[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) records.push(JSON.parse(line) as LoggedRecord);
      done();
    },
  });
  return { logger: createLogger(service, level, sink), records };
}
