import type { CustomerEvent } from '@crs/contracts';
import type { DecodedMessage } from '@crs/messaging';
import type { CustomerPrivacy } from '@crs/privacy';
import type { CustomerDirectory } from '../domain/customer-directory';

export interface CustomerEventProjectorDeps {
  directory: CustomerDirectory;
  /** Set at start, once the key store is connected. */
  privacy: () => CustomerPrivacy;
}

/**
 * The projector of every customer event into the in-memory directory: whom to re-screen, their last
 * hits, and the customers marked BLACK (the internal list).
 */
export function customerEventProjector(
  deps: CustomerEventProjectorDeps,
): (message: DecodedMessage<CustomerEvent>) => Promise<void> {
  const { directory } = deps;

  /**
   * What the directory needs in plain (docs/privacy.md): the record of a screening request (whom to
   * re-screen), the hits of a result (what changed), and the record of a customer marked BLACK (the
   * internal list). Everything else is folded as it is, without a key look-up.
   */
  const revealForDirectory = async (event: CustomerEvent): Promise<CustomerEvent> => {
    const privacy = deps.privacy();
    switch (event.type) {
      case 'ScreeningRequested':
        if (!event.data.customer) return event;
        return {
          ...event,
          data: {
            ...event.data,
            customer: (await privacy.decrypt(event.streamId, event.data.customer)).record,
          },
        };
      case 'ScreeningCompleted':
        return {
          ...event,
          data: { ...event.data, hits: (await privacy.decryptHits(event.streamId, event.data.hits)).hits },
        };
      case 'CustomerCreated':
      case 'CustomerUpdated':
        if (event.data.customer.listPurpose !== 'BLACK' && !directory.isBlack(event.streamId)) return event;
        return {
          ...event,
          data: {
            ...event.data,
            customer: (await privacy.decrypt(event.streamId, event.data.customer)).record,
          },
        };
      default:
        return event;
    }
  };

  return async (m) => {
    directory.apply(await revealForDirectory(m.value));
  };
}
