import { workerIndex } from './workers';
import type { Logger } from 'pino';

export interface Startable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs a built service until SIGTERM/SIGINT, then stops it once, under a hard timeout: stop accepting,
 * drain in-flight work, commit, disconnect. A second signal or the timeout forces the exit.
 */
export function runUntilSignalled(service: Startable, logger: Logger, shutdownTimeoutMs: number): void {
  let stopping = false;
  const stop = (reason: string, code: number) => {
    if (stopping) {
      logger.warn({ reason }, 'second stop request: exiting now');
      process.exit(code || 1);
    }
    stopping = true;
    logger.info({ reason }, 'stopping');
    const timer = setTimeout(() => {
      logger.error({ shutdownTimeoutMs }, 'graceful shutdown timed out');
      process.exit(1);
    }, shutdownTimeoutMs);
    timer.unref();
    service
      .stop()
      .then(() => {
        logger.info('stopped');
        process.exit(code);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM', 0));
  if (workerIndex() === undefined) process.once('SIGINT', () => stop('SIGINT', 0));
  // A worker of a pool (runWorkerPool) stops on its primary's SIGTERM alone: Ctrl-C in a terminal sends
  // SIGINT to the whole process group, and a second signal would make a worker exit without draining.
  else process.on('SIGINT', () => undefined);
  process.on('unhandledRejection', (err) => {
    logger.fatal({ err }, 'unhandled rejection');
    stop('unhandledRejection', 1);
  });
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    stop('uncaughtException', 1);
  });
  service.start().then(
    () => logger.info('started'),
    (err: unknown) => {
      logger.fatal({ err }, 'failed to start');
      stop('startFailed', 1);
    },
  );
}
