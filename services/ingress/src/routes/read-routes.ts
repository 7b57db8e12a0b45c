import { Router } from 'express';
import { ErrorCodes, FieldProblems, streamKey, toCloudEvent } from '@crs/contracts';
import type { TokenVerifier } from '@crs/auth';
import { allowedBusinessUnits } from '@crs/auth';
import { RequestInvalidError, ResourceNotFoundError, fieldError } from '@crs/http';
import type {
  CommunicationEventDoc,
  CommunicationEventsDoc,
  CustomerDoc,
  ProjectionCatalog,
} from '@crs/store';
import {
  CommunicationKeyLookup,
  communicationEventsOf,
  customerFilter,
  readAssessment,
  readCustomerRecord,
} from '@crs/store';
import type { CustomerPrivacy } from '@crs/privacy';
import { authenticate, assertBusinessUnit, principalOf } from '../http/auth-middleware';

const MAX_PARAM = 255;
/** The communications-events endpoint answers at most this many events (by business unit, then stream version). */
const MAX_EVENTS = 1000;
/**
 * ... read from at most this many documents: a batch communication of 1,000 customers has a few thousand
 * events, in a handful of folded documents (decision 0050) or one document each when written before it.
 */
const MAX_DOCUMENTS = 10_000;

/** A path parameter of 1..255 characters, or 400 V001 naming it (the read and privacy routes). */
export function param(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PARAM) {
    const message = `${name} is required (1..${MAX_PARAM} characters)`;
    throw new RequestInvalidError(ErrorCodes.ValidationFailed, message, [
      fieldError(name, FieldProblems.InvalidValue, message),
    ]);
  }
  return value;
}

/** The read API: current state of a customer, and every event of a communication (pull for missed callbacks). */
export function readRoutes(deps: {
  verifier: TokenVerifier;
  catalog: ProjectionCatalog;
  privacy: CustomerPrivacy;
}): Router {
  const router = Router();
  const read = authenticate(deps.verifier, 'customers:read');
  const communications = new CommunicationKeyLookup();

  router.get('/api/customers/:businessUnit/:customerExtId', read, async (req, res) => {
    const businessUnit = param(req.params.businessUnit, 'businessUnit');
    const customerExtId = param(req.params.customerExtId, 'customerExtId');
    assertBusinessUnit(req, businessUnit);
    const customers = await deps.catalog.collection<CustomerDoc>('customers');
    const doc = await customers.findOne(customerFilter(businessUnit, customerExtId));
    if (!doc) throw new ResourceNotFoundError('Customer not found');
    const a = doc.latestAssessment ? readAssessment(doc.latestAssessment) : undefined;
    // docs/privacy.md: personal fields are decrypted here, at the edge; erased ones read as null.
    const streamId = streamKey(doc.businessUnit, doc.customerExtId);
    // An erasure the read model has recorded wins over a key this process may still have cached.
    const record = readCustomerRecord(doc.data) ?? {};
    const revealed =
      doc.personalDataErased === true
        ? deps.privacy.erased(streamId, record)
        : await deps.privacy.decrypt(streamId, record);
    const erased = doc.personalDataErased === true || revealed.erased;
    res.json({
      businessUnit: doc.businessUnit,
      customerExtId: doc.customerExtId,
      entityType: doc.entityType,
      ...(doc.status ? { customerStatus: doc.status } : {}),
      simplified: doc.simplified === true,
      version: doc.version,
      ...(doc.updatedAt ? { updatedAt: doc.updatedAt } : {}),
      customer: revealed.record,
      personalDataErased: erased,
      ...(erased && doc.erasure?.erasedAt ? { personalDataErasedAt: doc.erasure.erasedAt } : {}),
      riskLevel: doc.riskLevel ?? null,
      screening: doc.screening ?? {},
      listPurpose: doc.listPurpose ?? null,
      override: doc.override ?? null,
      latestAssessment: a ? { ...a, assessmentId: a.eventId, riskLevel: a.level, status: 'COMPLETED' } : null,
    });
  });

  router.get(
    '/api/integration-services/v1/communications-events/:communicationNumber',
    read,
    async (req, res) => {
      const communicationNumber = param(req.params.communicationNumber, 'communicationNumber');
      const principal = principalOf(req);
      const requested = typeof req.query.businessUnit === 'string' ? req.query.businessUnit : undefined;
      const allowed = allowedBusinessUnits(principal);
      if (requested) assertBusinessUnit(req, requested);
      const collection = await deps.catalog.collection<CommunicationEventsDoc | CommunicationEventDoc>(
        'communication_events',
      );
      // By the communication's key where the collection has one (decision 0065: no scan on FerretDB).
      const filter: Record<string, unknown> = {
        ...(await communications.filter(collection, communicationNumber)),
      };
      if (requested) filter.businessUnit = requested;
      else if (allowed !== '*') filter.businessUnit = { $in: [...allowed] };
      // Documents fold a communication's events (decision 0050; one event each before it): read them all,
      // each event once, in the order the endpoint has always answered, at most MAX_EVENTS of them.
      const docs = communicationEventsOf(await collection.find(filter).limit(MAX_DOCUMENTS).toArray())
        .sort((a, b) =>
          a.businessUnit < b.businessUnit
            ? -1
            : a.businessUnit > b.businessUnit
              ? 1
              : a.streamVersion - b.streamVersion,
        )
        .slice(0, MAX_EVENTS);
      // Customers whose erasure the read model records show null whatever key this process has cached.
      const streams = [...new Set(docs.map((d) => streamKey(d.businessUnit, d.customerExtId)))];
      const customers = await deps.catalog.collection<CustomerDoc>('customers');
      const erasedStreams = new Set(
        (
          await customers
            .find({ _id: { $in: streams }, personalDataErased: true }, { projection: { _id: 1 } })
            .toArray()
        ).map((c) => c._id),
      );
      const revealed = await Promise.all(
        docs.map(async (d) => {
          const streamId = streamKey(d.businessUnit, d.customerExtId);
          const r = await deps.privacy.revealEventData(streamId, d.data, erasedStreams.has(streamId));
          return r.erased ? { ...r.data, personalDataErased: true } : r.data;
        }),
      );
      const cloud = docs
        .map((d, i) =>
          toCloudEvent(
            {
              eventId: d.eventId,
              type: d.type,
              businessUnit: d.businessUnit,
              customerExtId: d.customerExtId,
              correlationId: d.communicationNumber,
              occurredAt: d.occurredAt,
              data: d.data,
            },
            revealed[i]!,
          ),
        )
        .filter((e) => e !== undefined);
      const errors = docs
        .filter((d) => d.type === 'CustomerCommandRejected')
        .map((d) => ({ code: String(d.data.errorCode), description: String(d.data.errorDescription) }));
      // docs/api.md: 404 for an unknown communication. Events of business units the token does not
      // cover were filtered out above, so another unit's communication is just as unknown: nothing leaks.
      if (docs.length === 0) throw new ResourceNotFoundError('No events for this communication number (yet)');
      res.json({ events: cloud, errors });
    },
  );

  return router;
}
