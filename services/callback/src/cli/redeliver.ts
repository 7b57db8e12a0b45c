import { createLogger, loadConfig, mongoConfigSpec, parseCommandLine, runCommand } from '@crs/runtime';
import { connectMongo } from '@crs/store';
import { DeliveryStore } from '../delivery-store';

const USAGE = `usage: redeliver [--business-unit BU] [--communication-number N] [--event-id ID ...] [--all-statuses]

Puts dead-lettered callbacks back in the delivery queue; the running callback service sends them
(docs/operations.md, "Dead letters"). Without options every dead letter is requeued.

  --business-unit BU         only this business unit's
  --communication-number N   only this communication's
  --event-id ID              only these events (repeat the option for several)
  --all-statuses             also the chosen callbacks that are not dead (sent again with their
                             original ce-id, so receivers deduplicate); give a communication
                             number where you can: without one it reads the whole log
  -h, --help                 this text

Settings come from the environment (MONGODB_*). Exit 0 when done, 1 on an error, 2 on wrong usage.
`;

/**
 * `redeliver [--business-unit BU] [--communication-number N] [--event-id ID ...] [--all-statuses]`:
 * puts dead-lettered (or chosen) callbacks back in the queue; the running callback service sends them.
 */
async function main(argv: string[]): Promise<number> {
  const line = parseCommandLine(argv, USAGE, {
    options: {
      'event-id': { type: 'string', multiple: true },
      'business-unit': { type: 'string' },
      'communication-number': { type: 'string' },
      'all-statuses': { type: 'boolean', default: false },
    },
  });
  if ('exitCode' in line) return line.exitCode;
  const { values } = line;
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
  return 0;
}

runCommand('redeliver', main);
