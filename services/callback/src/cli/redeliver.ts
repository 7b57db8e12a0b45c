import { parseArgs } from 'node:util';
import { createLogger, loadConfig, mongoConfigSpec } from '@crs/runtime';
import { connectMongo } from '@crs/store';
import { DeliveryStore } from '../delivery-store';

/**
 * `redeliver [--business-unit BU] [--communication-number N] [--event-id ID ...] [--all-statuses]`:
 * puts dead-lettered (or chosen) callbacks back in the queue; the running callback service sends them.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'event-id': { type: 'string', multiple: true },
      'business-unit': { type: 'string' },
      'communication-number': { type: 'string' },
      'all-statuses': { type: 'boolean', default: false },
    },
  });
  const config = loadConfig(mongoConfigSpec);
  const logger = createLogger('callback-redeliver');
  const { client, ownDb } = await connectMongo(config);
  const n = await new DeliveryStore(ownDb('callback')).redeliver(
    {
      ...(values['event-id'] ? { eventIds: values['event-id'] } : {}),
      ...(values['business-unit'] ? { businessUnit: values['business-unit'] } : {}),
      ...(values['communication-number'] ? { communicationNumber: values['communication-number'] } : {}),
      deadOnly: !values['all-statuses'],
    },
    new Date(),
  );
  logger.info({ requeued: n }, 'callbacks queued for redelivery');
  await client.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
