import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadCallbackConfig } from './config';
import { buildCallbackService } from './app';

const config = loadCallbackConfig();
const logger = createLogger(config.SERVICE_NAME || 'callback', config.LOG_LEVEL);
runUntilSignalled(buildCallbackService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
