import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadScreeningConfig } from './config';
import { buildScreeningService } from './app';

const config = loadScreeningConfig();
const logger = createLogger(config.SERVICE_NAME || 'screening', config.LOG_LEVEL);
runUntilSignalled(buildScreeningService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
