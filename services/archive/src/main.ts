import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadArchiveConfig } from './config';
import { buildArchiveService } from './app';

const config = loadArchiveConfig();
const logger = createLogger(config.SERVICE_NAME || 'archive', config.LOG_LEVEL);
runUntilSignalled(buildArchiveService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
