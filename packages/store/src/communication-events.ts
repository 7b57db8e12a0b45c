import { createHash } from 'node:crypto';
import type { Db, Document } from 'mongodb';
import { CustomerProjectionNames, type CustomerProjectionName } from './collections';
import type {
  CommunicationEventDoc,
  CommunicationEventEntry,
  CommunicationEventsDoc,
  ProjectedCommunicationEvent,
} from './read-models';
import { readEventData } from './stored-json';
import { COMMUNICATION_KEYS_MARKER, communicationKey } from './communication-keys';

/** At most this many events in one `communication_events` document (a batch communication has thousands). */
export const MAX_EVENTS_PER_COMMUNICATION_DOC = 500;
/** ... and at most about this many characters of events (a RiskAssessed event with its explanation is ~5 KB). */
export const MAX_COMMUNICATION_DOC_CHARS = 1024 * 1024;

/** An event of a communication as readers see it. */
export interface CommunicationEvent extends CommunicationEventEntry {
  businessUnit: string;
  communicationNumber: string;
}

function groupId(ids: readonly string[]): string {
  if (ids.length === 1) return ids[0]!;
  const digest = createHash('sha256').update(ids.join('\n')).digest('base64url').slice(0, 22);
  return `${ids[0]}+${ids.length - 1}.${digest}`;
}

/**
 * Folds the events one write sees together into `communication_events` documents (decision 0050): one per
 * business unit and communication, in the order given, sliced at `max` events. The same events always make
 * the same documents (`_id`: the communication's key, decision 0065, then their ids: a group of one the
 * event id), so a write repeated after a failure collides instead of doubling; an event given twice counts
 * once.
 */
export function groupCommunicationEvents(
  events: Iterable<ProjectedCommunicationEvent>,
  max = MAX_EVENTS_PER_COMMUNICATION_DOC,
): CommunicationEventsDoc[] {
  const groups = new Map<
    string,
    { businessUnit: string; communicationNumber: string; entries: CommunicationEventEntry[] }
  >();
  const seen = new Set<string>();
  for (const e of events) {
    if (seen.has(e._id)) continue;
    seen.add(e._id);
    const key = `${e.businessUnit}\u0000${e.communicationNumber}`;
    let group = groups.get(key);
    if (!group) {
      group = { businessUnit: e.businessUnit, communicationNumber: e.communicationNumber, entries: [] };
      groups.set(key, group);
    }
    group.entries.push({
      eventId: e._id,
      customerExtId: e.customerExtId,
      type: e.type,
      occurredAt: e.occurredAt,
      streamVersion: e.streamVersion,
      data: e.data,
    });
  }
  const docs: CommunicationEventsDoc[] = [];
  for (const g of groups.values()) {
    const key = communicationKey(g.communicationNumber);
    let ids: string[] = [];
    let parts: string[] = [];
    let bytes = 0;
    const cut = () => {
      docs.push({
        _id: key + groupId(ids),
        businessUnit: g.businessUnit,
        communicationNumber: g.communicationNumber,
        count: ids.length,
        events: `[${parts.join(',')}]`,
      });
      ids = [];
      parts = [];
      bytes = 0;
    };
    for (const entry of g.entries) {
      const part = JSON.stringify(entry);
      if (ids.length > 0 && (ids.length >= max || bytes + part.length > MAX_COMMUNICATION_DOC_CHARS)) cut();
      ids.push(entry.eventId);
      parts.push(part);
      bytes += part.length + 1;
    }
    if (ids.length > 0) cut();
  }
  return docs;
}

function isGroup(doc: CommunicationEventsDoc | CommunicationEventDoc): doc is CommunicationEventsDoc {
  return typeof (doc as CommunicationEventsDoc).events === 'string';
}

/**
 * The events that `communication_events` documents hold, each once (documents of differently cut groups
 * may overlap), in document order: the folded documents of decision 0050 and the one-event documents
 * written before it alike.
 */
export function communicationEventsOf(
  docs: Iterable<CommunicationEventsDoc | CommunicationEventDoc>,
): CommunicationEvent[] {
  const out: CommunicationEvent[] = [];
  const seen = new Set<string>();
  const keep = (e: CommunicationEvent) => {
    if (seen.has(e.eventId)) return;
    seen.add(e.eventId);
    out.push(e);
  };
  for (const doc of docs) {
    if (doc._id === COMMUNICATION_KEYS_MARKER) continue;
    if (isGroup(doc)) {
      for (const entry of JSON.parse(doc.events) as CommunicationEventEntry[])
        keep({ ...entry, businessUnit: doc.businessUnit, communicationNumber: doc.communicationNumber });
    } else
      keep({
        eventId: doc._id,
        businessUnit: doc.businessUnit,
        communicationNumber: doc.communicationNumber,
        customerExtId: doc.customerExtId,
        type: doc.type,
        occurredAt: doc.occurredAt,
        streamVersion: doc.streamVersion,
        data: readEventData(doc.type, doc.data),
      });
  }
  return out;
}

/**
 * What the projector's read models hold, comparable across writes that cut their chunks differently (a
 * live projector and a replay; redeliveries): the documents of customers, assessments and screenings by
 * `_id`; for `communication_events` every event once, as `{ _id: eventId, ...event }` by event id. The
 * replay checks (the fault suite, the exactly-once e2e test) compare these.
 */
export async function projectionContents(
  db: Db,
  names: Record<CustomerProjectionName, string>,
): Promise<Record<CustomerProjectionName, Document[]>> {
  const out = {} as Record<CustomerProjectionName, Document[]>;
  for (const n of CustomerProjectionNames) {
    const docs = await db.collection(names[n]).find({}).sort({ _id: 1 }).toArray();
    out[n] =
      n === 'communication_events'
        ? communicationEventsOf(docs as unknown as CommunicationEventsDoc[])
            .map((e) => ({ _id: e.eventId, ...e }))
            .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
        : docs;
  }
  return out;
}
