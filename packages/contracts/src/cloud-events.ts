import type { CustomerEventType } from './events';

/**
 * How customer events appear to clients, by callback and by the pull endpoint alike: CloudEvents 1.0
 * types in reverse-DNS form, one per client-facing outcome. Internal bookkeeping events have none.
 */
export const CloudEventTypes = {
  riskAssessmentCompleted: 'com.crs.risk-assessment.completed',
  riskAssessmentPending: 'com.crs.risk-assessment.pending',
  screeningCompleted: (list: string) => `com.crs.screening.${list.toLowerCase()}.completed`,
  screeningPending: 'com.crs.screening.pending',
  importRejected: 'com.crs.customer.import.rejected',
  customerUpdated: 'com.crs.customer.updated',
  personalDataErased: 'com.crs.customer.personal-data.erased',
} as const;

export interface StoredEventLike {
  eventId: string;
  type: CustomerEventType | string;
  businessUnit: string;
  customerExtId: string;
  correlationId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface CloudEvent {
  specversion: '1.0';
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: Record<string, unknown>;
}

/** The client-facing CloudEvent type of a customer event, or undefined when it is not client-facing. */
export function cloudEventTypeOf(type: string, data: Record<string, unknown>): string | undefined {
  switch (type) {
    case 'RiskAssessed':
      return CloudEventTypes.riskAssessmentCompleted;
    case 'RiskEvaluationRequested':
      return CloudEventTypes.riskAssessmentPending;
    case 'ScreeningCompleted':
      return CloudEventTypes.screeningCompleted(String(data.list));
    case 'ScreeningRequested':
      return CloudEventTypes.screeningPending;
    case 'CustomerCommandRejected':
      return CloudEventTypes.importRejected;
    case 'CustomerCreated':
    case 'CustomerUpdated':
    case 'CustomerStatusChanged':
      return CloudEventTypes.customerUpdated;
    case 'PersonalDataErased':
      return CloudEventTypes.personalDataErased;
    default:
      return undefined;
  }
}

/** `ce-source` carries the communicationNumber (the correlation key), `ce-subject` the customerExtId. */
export function toCloudEvent(event: StoredEventLike, data: Record<string, unknown>): CloudEvent | undefined {
  const type = cloudEventTypeOf(event.type, event.data);
  if (!type) return undefined;
  return {
    specversion: '1.0',
    id: event.eventId,
    type,
    source: event.correlationId,
    subject: event.customerExtId,
    time: event.occurredAt,
    datacontenttype: 'application/json',
    data: { businessUnit: event.businessUnit, eventType: event.type, ...data },
  };
}
