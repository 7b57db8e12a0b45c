import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadEvaluationConfig } from './config';
import { buildEvaluationService } from './app';

const config = loadEvaluationConfig();
const logger = createLogger(config.SERVICE_NAME || 'evaluation', config.LOG_LEVEL);
runUntilSignalled(buildEvaluationService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
