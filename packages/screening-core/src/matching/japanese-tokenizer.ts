import path from 'node:path';
import kuromoji from 'kuromoji';
import type { JapaneseTokenizer } from './readings';

/**
 * Loads kuromoji's IPA dictionary (1-2 s; about 220 MB of memory, mostly array buffers), from the package's `dict` folder
 * unless `dicPath` says otherwise.
 */
export function loadJapaneseTokenizer(dicPath?: string): Promise<JapaneseTokenizer> {
  const dir = dicPath ?? path.join(path.dirname(require.resolve('kuromoji/package.json')), 'dict');
  return new Promise((resolve, reject) => {
    kuromoji.builder({ dicPath: dir }).build((err, tokenizer) => {
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(tokenizer);
    });
  });
}
