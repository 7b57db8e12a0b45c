import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { OwnedCollections } from '@crs/store';
import type { DurablePublisher } from '@crs/messaging';
import { GroupCommit, type QueuedSubmit } from '@crs/runtime';
import { commandMessage, type PendingCommand } from './pending-command';
import {
  GroupReserver,
  heldBy,
  type Reserved,
  type ReservedGroup,
  type ReserveOutcome,
  type UsedQuery,
} from './reservations/group-reserver';
import { PublicationRecord } from './reservations/publication-record';
import { reservationKey, type ReservationDoc } from './reservations/reservation';
import { ReservationReleases } from './reservations/reservation-releases';

export type { PendingCommand } from './pending-command';
export type { ReserveOutcome } from './reservations/group-reserver';

type Submit = QueuedSubmit<PendingCommand, ReserveOutcome>;

/** A group as reserved: its id (carried by every reservation of it) and what each request reserved. */
interface GroupReservation extends ReservedGroup {
  groupId: string;
}

/**
 * What the ingress must answer synchronously: the communicationNumber is reserved under a unique key
 * (unique per business unit across every write endpoint), then the command is published with acks
 * from all in-sync replicas, and the client is answered; the reservation's group is then recorded as
 * published (without holding the answer). If publishing fails the reservation is released, so a retry
 * is possible and nothing was acknowledged that Kafka does not hold.
 *
 * A release can fail too (`ReservationReleases`): a failed release is retried in the background, and a
 * retry that meets a reservation still waiting for release releases it at once and proceeds. A
 * reservation left by an attempt that died before answering is reclaimed by a retry of the same
 * customer once it is old enough and not recorded as published (`isOrphan`, `PublicationRecord`,
 * docs/decisions/0026).
 */
export interface CommandGatewayOptions {
  /** First wait before a failed release (or publication record) is tried again; doubles up to `releaseRetryMaxMs`. */
  releaseRetryMs?: number;
  releaseRetryMaxMs?: number;
  /** Told about each reservation whose release failed and is kept for the background retry. */
  onReleaseFailed?: (err: unknown, pending: number) => void;
  /** Told about each acknowledged reservation whose publication record could not be written yet. */
  onRecordFailed?: (err: unknown, pending: number) => void;
  /**
   * A reservation older than this whose command Kafka never acknowledged (none is recorded as published)
   * is an orphan: its attempt died between reserving and answering (an ingress killed mid-request, whose
   * process forgot what it must release). A retry of the same customer reclaims it instead of getting
   * O001. 0 or unset: never.
   */
  orphanAfterMs?: number;
  /** Told about each orphan a retry reclaimed (its key: business unit and communicationNumber). */
  onReclaimed?: (key: string) => void;
  /**
   * How long a submit that finds the gateway idle waits for others to share its `insertMany` (group
   * commit); 0 = those of the same turn of the event loop. Requests arriving while a group's insert is
   * in flight always wait for it and go together. Default 1 ms.
   */
  groupWindowMs?: number;
  /** Reservations per group at most (a single request larger than this still goes whole). Default 2,000. */
  maxGroupItems?: number;
  /**
   * How long the publication record of an acknowledged group waits for others' (decision 0026; nobody
   * waits for it). Default 100 ms: under light load one write per interval instead of one per request.
   */
  recordLingerMs?: number;
  /**
   * Applied to a request's reserved commands just before they are published: the ingress encrypts the
   * personal fields of customer records here (docs/privacy.md), so no plaintext reaches Kafka. A failure
   * releases the request's reservations like a failed publish.
   */
  protect?: (items: PendingCommand[]) => Promise<PendingCommand[]>;
}

export class CommandGateway {
  private readonly releases: ReservationReleases;
  private readonly published: PublicationRecord;
  private readonly reserver: GroupReserver;
  private readonly groups: GroupCommit<PendingCommand, ReserveOutcome, GroupReservation>;

  constructor(
    db: Db,
    private readonly publisher: DurablePublisher,
    private readonly commandsTopic: string,
    private readonly clock: () => Date,
    private readonly options: CommandGatewayOptions = {},
  ) {
    const reservations = db.collection<ReservationDoc>(OwnedCollections.reservations);
    const retryMs = options.releaseRetryMs ?? 1000;
    const retryMaxMs = options.releaseRetryMaxMs ?? 30000;
    this.releases = new ReservationReleases(reservations, retryMs, retryMaxMs, options.onReleaseFailed);
    this.published = new PublicationRecord(db, clock, {
      retryMs,
      retryMaxMs,
      lingerMs: options.recordLingerMs ?? 100,
      ...(options.onRecordFailed ? { onRecordFailed: options.onRecordFailed } : {}),
    });
    this.reserver = new GroupReserver(reservations, this.releases, this.published, clock, options);
    this.groups = new GroupCommit(options.groupWindowMs ?? 1, options.maxGroupItems ?? 2000, {
      reserve: (group) => this.reserveGroup(group),
      complete: (group, reserved) => this.completeGroup(group, reserved),
    });
  }

  /** Reservations whose release failed and is still being retried (a gauge for operators). */
  unreleasedCount(): number {
    return this.releases.count();
  }

  /** Acknowledged reservations whose publication record is still being written (a gauge for operators). */
  unrecordedCount(): number {
    return this.published.pendingCount();
  }

  /** Stops the background retries (shutdown); reservations still held stay in the store. */
  async close(): Promise<void> {
    this.releases.close();
    await this.published.close();
  }

  static key(businessUnit: string, communicationNumber: string): string {
    return reservationKey(businessUnit, communicationNumber);
  }

  isUsed(businessUnit: string, communicationNumber: string, customerExtId: string): Promise<boolean> {
    return this.reserver.isUsed(businessUnit, communicationNumber, customerExtId);
  }

  /** Whether each number is taken, read by `_id` list (validate-batch-customers). */
  usedAmong(items: readonly UsedQuery[]): Promise<boolean[]> {
    return this.reserver.usedAmong(items);
  }

  /**
   * Reserves every communicationNumber and publishes the commands of those reserved; returns per item.
   *
   * Group commit: requests submitted while the previous group's insert is in flight (or within
   * `groupWindowMs` of an idle gateway) are reserved together with one unordered `insertMany`
   * (a duplicate key comes back per index as E11000 and gives that item O001), then each request
   * publishes its own commands (the publisher coalesces them into one produce call) and gets its own
   * answer: a request whose publish fails releases exactly its own reservations.
   */
  submit(items: PendingCommand[]): Promise<ReserveOutcome[]> {
    return this.groups.submit(items);
  }

  /** Publishes a command that needs no communicationNumber reservation (overrides, re-evaluations). */
  async publishOnly(item: PendingCommand): Promise<string> {
    const commandId = randomUUID();
    await this.publisher.publish([
      commandMessage(this.commandsTopic, item, commandId, this.clock().toISOString()),
    ]);
    return commandId;
  }

  private async reserveGroup(group: Submit[]): Promise<GroupReservation> {
    // Every reservation of the group carries its id; the publication record is written per group.
    const groupId = randomUUID();
    return { groupId, ...(await this.reserver.reserve(group, groupId)) };
  }

  /** Protects, publishes and answers each request of a reserved group, then records the group. */
  private async completeGroup(group: Submit[], { groupId, requests: reserved, keys }: GroupReservation) {
    // The whole group's records are protected at once (one key-store round trip for its new customers).
    if (this.options.protect) {
      const attempts = reserved.flatMap((r) => r?.attempts ?? []);
      try {
        const items = await this.options.protect(attempts.map((a) => a.item));
        attempts.forEach((a, i) => (a.item = items[i]!));
      } catch (err) {
        await Promise.all(
          group.map((request, i) => {
            const mine = reserved[i];
            return mine
              ? this.releases.release(mine.attempts.map(heldBy)).finally(() => request.reject(err))
              : undefined;
          }),
        );
        return;
      }
    }
    // Publishing overlaps the next group's reservations.
    const acknowledged = await Promise.all(
      group.map((request, i) => {
        const mine = reserved[i];
        return mine ? this.publishRequest(request, mine) : false;
      }),
    );
    // One document per group: the keys of the group whose command was not acknowledged are listed in it.
    // Known to this process at once; written to the store without holding the answers (a store round
    // trip less per request; decision 0026): an ingress that dies before the write leaves the group
    // unrecorded, the crash window after Kafka's acknowledgement, where a retry's repeat is ignored by
    // the decider. The record never fails a request: Kafka holds the commands.
    const published = new Set<string>();
    reserved.forEach((mine, i) => {
      if (mine && acknowledged[i]) for (const a of mine.attempts) published.add(heldBy(a).key);
    });
    this.published.record(
      groupId,
      published.size,
      keys.filter((key) => !published.has(key)),
    );
  }

  /**
   * Publishes a request's commands and answers it; true when Kafka acknowledged them (the caller then
   * records the group), false when the publish failed (its reservations are released and it is rejected).
   */
  private async publishRequest(
    request: Submit,
    { outcomes, attempts: reserved }: Reserved,
  ): Promise<boolean> {
    if (reserved.length === 0) {
      request.resolve(outcomes);
      return true;
    }
    const issuedAt = this.clock().toISOString();
    try {
      await this.publisher.publish(
        reserved.map(({ item, commandId }) => commandMessage(this.commandsTopic, item, commandId, issuedAt)),
      );
    } catch (err) {
      await this.releases.release(reserved.map(heldBy));
      request.reject(err);
      return false;
    }
    request.resolve(outcomes);
    return true;
  }
}
