import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadProjectorConfig } from './config';
import { buildProjectorService } from './app';

const config = loadProjectorConfig();
const logger = createLogger(config.SERVICE_NAME || 'projector', config.LOG_LEVEL);
runUntilSignalled(buildProjectorService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
