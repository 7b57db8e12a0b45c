import { createHash } from 'node:crypto';

/**
 * A name's fingerprint: sha256 of its normalised words in sorted order (order-insensitive like the matcher).
 * Decisions keep the fingerprint, never the name, so the decisions log holds no personal data. Outside
 * `domain/` because it hashes; the composition root passes it to `applySuppression`.
 */
export function screenedNameHash(queryTokens: readonly string[]): string {
  return createHash('sha256')
    .update([...queryTokens].sort().join(' '))
    .digest('hex');
}
