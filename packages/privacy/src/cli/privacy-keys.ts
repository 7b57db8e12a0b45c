import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createLogger, loadConfig, mongoConfigSpec, str } from '@crs/runtime';
import { connectMongo } from '@crs/store';
import { privacyConfigSpec } from '../config';
import { DataKeyStore } from '../data-key-store';
import { KeyEncryptionKeys, type KekSetDocument } from '../key-encryption-keys';

/**
 * `privacy-keys rotate [--batch-size N] [--max-keys N]`: rewraps every data key with the active KEK of
 * PRIVACY_KEK_FILE, resumably, logging progress (docs/privacy.md, "KEK rotation").
 * `privacy-keys new-kek --id <id> --out <file>`: writes a key set whose active KEK is new, keeping the
 * keys of <file> if it exists (mode 0600). Key material is never printed.
 */
async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (command === 'new-kek') {
    const id = flag('--id');
    const out = flag('--out');
    if (!id || !out) throw new Error('usage: privacy-keys new-kek --id <kek id> --out <file>');
    const previous = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as KekSetDocument) : undefined;
    const doc = KeyEncryptionKeys.generateDocument(id, previous);
    KeyEncryptionKeys.fromDocument(doc);
    writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    console.log(JSON.stringify({ written: out, active: id, keys: doc.keys.map((k) => k.id) }));
    return;
  }
  if (command !== 'rotate') throw new Error('usage: privacy-keys rotate | new-kek --id <id> --out <file>');
  const config = loadConfig({
    ...mongoConfigSpec,
    ...privacyConfigSpec,
    LOG_LEVEL: str({ default: 'info' }),
  });
  const logger = createLogger('privacy-keys', config.LOG_LEVEL);
  if (!config.PRIVACY_KEK_FILE) throw new Error('PRIVACY_KEK_FILE is not set');
  const keks = KeyEncryptionKeys.fromFile(config.PRIVACY_KEK_FILE);
  const { client, ownDb } = await connectMongo(config);
  const db = ownDb('keys');
  try {
    const store = new DataKeyStore({ db, keks, cache: { maxEntries: 0 } });
    const batchSize = Number(flag('--batch-size') ?? 200);
    const maxKeys = flag('--max-keys') === undefined ? undefined : Number(flag('--max-keys'));
    const result = await store.rotate({
      batchSize,
      ...(maxKeys === undefined ? {} : { maxKeys }),
      onProgress: (p) => logger.info(p, 'KEK rotation progress'),
    });
    logger.info(
      result,
      result.done ? 'KEK rotation pass finished' : 'KEK rotation paused; run again to resume',
    );
  } finally {
    await client.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
