import { commonConfigSpec, createLogger, loadConfig, mongoConfigSpec } from '@crs/runtime';
import { setUpMessaging } from '@crs/messaging';
import { connectMongo } from '@crs/store';
import { replayProjections } from '../replay';

/** `replay`: rebuild every projection from the event log into fresh collections and swap them in. */
async function main(): Promise<void> {
  const config = loadConfig({ ...commonConfigSpec, ...mongoConfigSpec });
  const logger = createLogger('projector-replay', config.LOG_LEVEL);
  const { client, db, ownDb } = await connectMongo(config);
  const messaging = await setUpMessaging(config, 'projector-replay', logger);
  const suffix = `r${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)}`;
  let last = 0;
  const result = await replayProjections({
    db,
    messaging,
    logger,
    suffix,
    // Erasures recorded in the log are applied to the key store again (after a restore of data_keys).
    keysDb: ownDb('keys'),
    onProgress: (read, total) => {
      if (Date.now() - last > 1000) {
        last = Date.now();
        const pct = total > 0n ? Number((read * 1000n) / total) / 10 : 100;
        logger.info({ read: read.toString(), total: total.toString(), percent: pct }, 'replay progress');
      }
    },
  });
  logger.info(
    {
      events: result.events,
      erasuresReapplied: result.erasuresReapplied,
      seconds: result.seconds,
      collections: result.collections,
    },
    'replay done; new projections active',
  );
  await client.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
