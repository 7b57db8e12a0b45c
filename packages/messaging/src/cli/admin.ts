import { commonConfigSpec, createLogger, loadConfig } from '@crs/runtime';
import { setUpMessaging } from '../messaging-setup';

/** `admin init`: create every topic and register every message schema (deploy hook, local stack). */
async function main(): Promise<void> {
  const [command] = process.argv.slice(2);
  const config = loadConfig(commonConfigSpec);
  const logger = createLogger('admin', config.LOG_LEVEL);
  if (command !== 'init') {
    logger.error('usage: admin init');
    process.exit(2);
  }
  await setUpMessaging(config, 'crs-admin', logger);
  logger.info('topics and schemas are in place');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
