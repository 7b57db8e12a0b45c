import { createLogger, runUntilSignalled, runWorkerPool } from '@crs/runtime';
import { loadIngressConfig } from './config';
import { buildIngress } from './app';

const config = loadIngressConfig();
const logger = createLogger(config.SERVICE_NAME || 'ingress', config.LOG_LEVEL);
runWorkerPool({
  workers: config.INGRESS_WORKERS,
  logger,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  run: () => runUntilSignalled(buildIngress(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS),
});
