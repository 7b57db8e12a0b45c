import { createLogger, runUntilSignalled } from '@crs/runtime';
import { loadCustomerConfig } from './config';
import { buildCustomerService } from './app';

const config = loadCustomerConfig();
const logger = createLogger(config.SERVICE_NAME || 'customer', config.LOG_LEVEL);
runUntilSignalled(buildCustomerService(config, logger), logger, config.SHUTDOWN_TIMEOUT_MS);
