import path from 'node:path';
import type { ListInput, ListSnapshot } from '../model';
import { loadRecordList } from './records';

/**
 * The bundled DEMO adverse-media set: fictional names written for this project, not real media
 * findings. Resolved from the package root so it works from `src/` (tests) and `dist/` alike.
 */
export const ADVERSE_MEDIA_DEMO_FILE = path.resolve(__dirname, '../../data/adverse-media-demo.json');

/** ADVERSE_MEDIA findings in the {@link ListRecord} format; defaults to the bundled demo set. */
export function loadAdverseMedia(
  loadedAt: string,
  input: ListInput = ADVERSE_MEDIA_DEMO_FILE,
  source = 'ADVERSE_MEDIA_DEMO',
): ListSnapshot {
  return loadRecordList(input, loadedAt, { list: 'ADVERSE_MEDIA', source });
}
