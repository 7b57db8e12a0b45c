import type { Logger } from '@crs/runtime';
import { createKafka, type KafkaSettings } from '@crs/messaging';
import type { TestCluster } from '@crs/testing';
import { sleep } from './scenario';

/**
 * A fresh start for the namespace on a fault stack that outlived an earlier run: its topics (and with
 * them the consumer groups' offsets) and its database go, so the checks see this run's events only.
 */
export async function resetNamespace(
  cluster: TestCluster,
  settings: KafkaSettings & { TOPIC_PREFIX: string },
  logger: Logger,
): Promise<void> {
  const admin = createKafka(settings, 'fault-suite-reset', logger).admin();
  await admin.connect();
  try {
    const ours = (await admin.listTopics()).filter((t) => t.startsWith(settings.TOPIC_PREFIX));
    if (ours.length > 0) {
      await admin.deleteTopics({ topics: ours, timeout: 30000 });
      const deadline = Date.now() + 60000;
      while ((await admin.listTopics()).some((t) => ours.includes(t))) {
        if (Date.now() > deadline)
          throw new Error('topics of the fault namespace were not deleted within 60 s');
        await sleep(500);
      }
    }
    const groups = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((g) => g.startsWith(settings.TOPIC_PREFIX));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
  await cluster.dropDatabase();
}
