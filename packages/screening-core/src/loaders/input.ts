import { readFileSync } from 'node:fs';
import { ListFormatError } from '../errors';
import type { ListInput } from '../model';

/** Bytes of a list input; paths are read synchronously because lists load once at start-up. */
export function readInput(input: ListInput, source: string): Buffer {
  if (typeof input === 'string') {
    try {
      return readFileSync(input);
    } catch (err) {
      throw new ListFormatError(source, `cannot read ${input}: ${(err as Error).message}`);
    }
  }
  return Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}
