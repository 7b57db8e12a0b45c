import { LIST_PURPOSE_HEADER, type CustomerEvent } from '@crs/contracts';
import type { CustomerData } from '@crs/contracts/types';
import { headerString, type DecodedMessage } from '@crs/messaging';
import { SEALED_FIELD, type CustomerPrivacy } from '@crs/privacy';
import type { CustomerDirectory } from '../domain/customer-directory';
import { screenedFields } from '../domain/screening-subjects';

export interface CustomerEventProjectorDeps {
  directory: CustomerDirectory;
  /** Set at start, once the key store is connected. */
  privacy: () => CustomerPrivacy;
}

/**
 * Whether the directory folds each customer event type (`CustomerDirectory.apply`). Its reader skips the
 * others before decoding them (by the `type` header): at a restart the directory is folded from the whole
 * customer log, and the assessments, evaluation requests, status changes, overrides, hit decisions and
 * rejections it never reads are about half of a screened customer's events. Every type is listed, so a new
 * event type does not compile until it is decided here.
 */
const FOLDED_BY_DIRECTORY: Record<CustomerEvent['type'], boolean> = {
  CustomerCreated: true,
  CustomerUpdated: true,
  InternalListPurposeRecorded: true,
  ScreeningRequested: true,
  ScreeningCompleted: true,
  PersonalDataErased: true,
  CustomerCommandRejected: false,
  CustomerStatusChanged: false,
  RiskAssessed: false,
  RiskEvaluationRequested: false,
  RiskOverrideSet: false,
  ScreeningHitDecided: false,
};

/** The customer event types the directory's reader hands out (the `types` of its StreamReader). */
export const DIRECTORY_EVENT_TYPES: readonly CustomerEvent['type'][] = (
  Object.keys(FOLDED_BY_DIRECTORY) as CustomerEvent['type'][]
).filter((type) => FOLDED_BY_DIRECTORY[type]);

/**
 * Which customer events the directory's reader skips without parsing them (decision 0073): a created or
 * updated record whose `listPurpose` header is `NONE`, of a customer the directory holds no list purpose
 * for, changes nothing in it (`CustomerDirectory.apply`), and such records (the customer record whole) are
 * most of what a restart would otherwise parse. Events without the header (appended before it existed)
 * are read whole.
 *
 * The reader asks about a fetched batch's messages before it folds any of them, so a customer that an
 * earlier message of the same batch may give a list purpose (a purpose recorded, a record with one, or a
 * record without the header) is read whole too; `batchDecided` forgets those of the batch's customers
 * (the keys of the messages it hands out) once its messages are all decided (the reader's `beforeBatch`),
 * when the directory is about to hold what they give. Only that batch's: the reader handles several
 * partitions' batches at once, and another partition's batch may be deciding meanwhile (a customer's
 * messages are all in one partition).
 */
export function directorySkip(directory: CustomerDirectory): {
  skip: (key: string, headers: Record<string, unknown> | undefined) => boolean;
  batchDecided: (keys: Iterable<string>) => void;
} {
  const mayHold = new Set<string>();
  return {
    skip: (key, headers) => {
      const type = headerString(headers, 'type');
      if (type === 'CustomerCreated' || type === 'CustomerUpdated') {
        const purpose = headerString(headers, LIST_PURPOSE_HEADER);
        if (purpose === 'NONE' && !mayHold.has(key) && !directory.hasListPurpose(key)) return true;
        if (purpose !== 'NONE') mayHold.add(key);
      } else if (type === 'InternalListPurposeRecorded' || type === undefined) {
        // A message without a type header (none is written without one) is read whole: it may be either.
        mayHold.add(key);
      }
      return false;
    },
    batchDecided: (keys) => {
      for (const key of keys) mayHold.delete(key);
    },
  };
}

/**
 * How many partitions' batches of a fetch the directory's reader folds at once (decision 0078); each is held
 * decoded meanwhile, so this bounds the memory: with more partitions in a fetch (the default is 6), the
 * others wait their turn.
 */
export const DIRECTORY_PARTITIONS_CONCURRENTLY = 4;

/** The directory reader's options (a `StreamReader` of the customer log), as the service composes them. */
export interface DirectoryReading {
  /** DIRECTORY_EVENT_TYPES: the others are skipped by their type header (decision 0068). */
  types: readonly string[];
  /** directorySkip: records of customers without a list purpose, by their header (decision 0073). */
  skip: (key: string, headers: Record<string, unknown> | undefined) => boolean;
  /** The batch's skips decided, then its customers' keys read at once (decision 0032). */
  beforeBatch: (messages: readonly DecodedMessage<CustomerEvent>[]) => Promise<void>;
  /**
   * Partitions folded at once (decision 0078): the directory's state is per customer, so one partition's
   * batch folds while another's waits for its customers' keys.
   */
  partitionsConcurrently: number;
  onMessage: (message: DecodedMessage<CustomerEvent>) => Promise<void>;
}

/** The whole of the directory's reading: what to skip, the batch hook and the projector, composed once. */
export function directoryReading(deps: CustomerEventProjectorDeps): DirectoryReading {
  const skipper = directorySkip(deps.directory);
  const warmKeys = customerEventKeyWarmer(deps);
  return {
    types: DIRECTORY_EVENT_TYPES,
    skip: skipper.skip,
    beforeBatch: async (messages) => {
      skipper.batchDecided(messages.map((m) => m.key));
      await warmKeys(messages);
    },
    partitionsConcurrently: DIRECTORY_PARTITIONS_CONCURRENTLY,
    onMessage: customerEventProjector(deps),
  };
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
   * What the directory needs in plain (docs/privacy.md): the screened fields of a screening request's
   * record (whom to re-screen), the hits of a result (what changed), and the screened fields of a
   * customer marked BLACK (the internal list). Everything else is folded as it is, without a key look-up.
   */
  const revealForDirectory = async (event: CustomerEvent): Promise<CustomerEvent> => {
    if (!needsKey(event, directory)) return event;
    const privacy = deps.privacy();
    switch (event.type) {
      case 'ScreeningRequested':
        return {
          ...event,
          data: {
            ...event.data,
            customer: await revealScreened(privacy, event.streamId, event.data.customer!),
          },
        };
      case 'ScreeningCompleted':
        return {
          ...event,
          data: { ...event.data, hits: (await privacy.decryptHits(event.streamId, event.data.hits)).hits },
        };
      case 'CustomerCreated':
      case 'CustomerUpdated':
        return {
          ...event,
          data: {
            ...event.data,
            customer: await revealScreened(privacy, event.streamId, event.data.customer),
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

/**
 * The record with what screening reads of it (`screenedFields`) decrypted; its other personal values stay
 * encrypted, and the directory keeps none of them.
 */
async function revealScreened(
  privacy: CustomerPrivacy,
  streamId: string,
  customer: CustomerData,
): Promise<CustomerData> {
  // The sealed field (decision 0054) has served once the screened part is open: not kept in memory.
  const { [SEALED_FIELD]: _sealed, ...rest } = customer as CustomerData & Record<string, unknown>;
  return { ...rest, ...(await privacy.decrypt(streamId, screenedFields(customer))).record } as CustomerData;
}

/**
 * The reader's batch hook: the keys of every customer whose events of this batch the directory reveals,
 * read at once (one store read per batch instead of one per customer: decision 0032).
 */
function customerEventKeyWarmer(
  deps: CustomerEventProjectorDeps,
): (messages: readonly DecodedMessage<CustomerEvent>[]) => Promise<void> {
  return async (messages) => {
    const streamIds = messages.flatMap((m) => (needsKey(m.value, deps.directory) ? [m.value.streamId] : []));
    if (streamIds.length > 0) await deps.privacy().warmKeys(streamIds);
  };
}

/** Whether the directory reads personal values of this event (revealForDirectory decrypts them). */
function needsKey(event: CustomerEvent, directory: CustomerDirectory): boolean {
  switch (event.type) {
    case 'ScreeningRequested':
      return event.data.customer !== undefined && event.data.customer !== null;
    case 'ScreeningCompleted':
      return event.data.hits.length > 0;
    case 'CustomerCreated':
    case 'CustomerUpdated':
      return event.data.customer.listPurpose === 'BLACK' || directory.isBlack(event.streamId);
    default:
      return false;
  }
}
