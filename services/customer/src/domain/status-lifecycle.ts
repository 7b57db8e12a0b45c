import type { CustomerStatus } from '@crs/contracts/types';

/**
 * The customerStatus lifecycle (the spec leaves transitions open; see docs/customer-lifecycle.md).
 * A first import may start in any state (migrations bring closed and suspended customers along);
 * CLOSED is terminal: a closed profile is disabled, and reopening it means a new customer record.
 */
export const AllowedTransitions: Record<CustomerStatus, readonly CustomerStatus[]> = {
  PENDING: ['PENDING', 'ACTIVE', 'REJECTED'],
  ACTIVE: ['ACTIVE', 'SUSPENDED', 'CLOSED'],
  SUSPENDED: ['SUSPENDED', 'ACTIVE', 'CLOSED'],
  REJECTED: ['REJECTED', 'PENDING'],
  CLOSED: ['CLOSED'],
};

export function canTransition(from: CustomerStatus | undefined, to: CustomerStatus): boolean {
  return from === undefined || AllowedTransitions[from].includes(to);
}
