import type {
  AssessmentData,
  CustomerEvent,
  CustomerData,
  CustomerStatus,
  RiskLevel,
  ScreeningHitData,
  ScreeningList,
} from '@crs/contracts/types';

export interface CustomerState {
  exists: boolean;
  simplified: boolean;
  /** Stream version of the last applied event (0 = no history). */
  version: number;
  customer?: CustomerData;
  status?: CustomerStatus;
  sourceOfRiskLevel?: 'EVALUATE' | 'IMPORT';
  listPurpose?: 'WHITE' | 'BLACK';
  /**
   * The latest assessment without its explanation: the decider decides on level, score, matrix version,
   * source and override. The explanation (every factor with its inputs: about 5 KB) stays in the
   * RiskAssessed event and the read models, not in the state or its snapshots (decision 0045).
   */
  assessment?: Omit<AssessmentData, 'explanation'>;
  override?: { level: RiskLevel; reason: string; expiresAt?: string; setBy: string };
  /** Open requests to reactors (the newest 20 of each), so a late or repeated answer is recognised. */
  pendingEvaluations: Record<string, string>;
  pendingScreenings: Record<string, ScreeningList[]>;
  screening: Partial<Record<ScreeningList, { matched: boolean; hitKeys: string[] }>>;
  /** Reviewers' decisions per list, keyed like hitKeys (subject|source|entryId); the latest decision wins. */
  screeningDecisions: Partial<Record<ScreeningList, Record<string, 'CONFIRMED' | 'FALSE_POSITIVE'>>>;
  /** The last communicationNumbers applied to this customer: a re-delivered import is a no-op. */
  recentCorrelations: string[];
  /** When the relationship ended (CLOSED: closingDate; REJECTED; an occasional customer's last import). */
  endedAt?: string;
  /** The last erasure of personal data (docs/privacy.md): the key generation it erased. */
  erasure?: { keyId?: string; at: string };
}

const MAX_RECENT_CORRELATIONS = 200;

export function initialState(): CustomerState {
  return {
    exists: false,
    simplified: false,
    version: 0,
    pendingEvaluations: {},
    pendingScreenings: {},
    screening: {},
    screeningDecisions: {},
    recentCorrelations: [],
  };
}

/** The key of one hit: whose name (subject), which list source and entry. */
export function hitKey(h: { subject?: string; source: string; entryId: string }): string {
  return `${h.subject ?? 'CUSTOMER'}|${h.source}|${h.entryId}`;
}

export function hitKeys(hits: ScreeningHitData[]): string[] {
  return hits
    .filter((h) => !h.suppressed)
    .map(hitKey)
    .sort();
}

function remember(list: string[], correlationId: string): string[] {
  if (list.includes(correlationId)) return list;
  const next = [...list, correlationId];
  return next.length > MAX_RECENT_CORRELATIONS ? next.slice(next.length - MAX_RECENT_CORRELATIONS) : next;
}

/**
 * Open requests are kept to the newest few: re-evaluations that changed nothing leave their request open, and
 * a screening request the screening service never answers (a poison message) would stay open for good.
 */
function bounded<V>(pending: Record<string, V>, max = 20): Record<string, V> {
  const keys = Object.keys(pending);
  return keys.length <= max
    ? pending
    : Object.fromEntries(keys.slice(keys.length - max).map((k) => [k, pending[k]!]));
}

/** Pure and total: folds one event into the state; never throws. */
export function evolve(state: CustomerState, event: CustomerEvent): CustomerState {
  const s: CustomerState = { ...state, version: Math.max(state.version, event.streamVersion) };
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated': {
      const d = event.data;
      const status = (d.customer.customerStatus as CustomerStatus | undefined) ?? s.status;
      const endedAt =
        d.simplified === true
          ? event.occurredAt
          : status === 'CLOSED'
            ? (d.customer.closingDate ?? s.endedAt ?? event.occurredAt)
            : status === 'REJECTED'
              ? (s.endedAt ?? event.occurredAt)
              : undefined;
      const { endedAt: _was, ...rest } = s;
      return {
        ...rest,
        exists: true,
        simplified: d.simplified === true,
        customer: d.customer,
        sourceOfRiskLevel: d.sourceOfRiskLevel,
        status,
        recentCorrelations: remember(s.recentCorrelations, event.correlationId),
        ...(endedAt ? { endedAt } : {}),
      };
    }
    case 'CustomerStatusChanged': {
      const { endedAt: _was, ...rest } = s;
      const to = event.data.to;
      const endedAt =
        to === 'CLOSED'
          ? (event.data.closingDate ?? event.occurredAt)
          : to === 'REJECTED'
            ? event.occurredAt
            : undefined;
      return { ...rest, status: to, ...(endedAt ? { endedAt } : {}) };
    }
    case 'PersonalDataErased':
      return {
        ...s,
        erasure: { ...(event.data.keyId ? { keyId: event.data.keyId } : {}), at: event.occurredAt },
      };
    case 'InternalListPurposeRecorded':
      return { ...s, listPurpose: event.data.listPurpose };
    case 'RiskEvaluationRequested':
      return {
        ...s,
        pendingEvaluations: bounded({ ...s.pendingEvaluations, [event.data.requestId]: event.data.reason }),
      };
    case 'RiskAssessed': {
      const pending = { ...s.pendingEvaluations };
      if (event.data.requestId) delete pending[event.data.requestId];
      const { explanation: _explanation, ...assessment } = event.data.assessment;
      return { ...s, assessment, pendingEvaluations: pending };
    }
    case 'RiskOverrideSet':
      return { ...s, override: { ...event.data } };
    case 'ScreeningRequested':
      return {
        ...s,
        pendingScreenings: bounded({ ...s.pendingScreenings, [event.data.requestId]: event.data.lists }),
      };
    case 'ScreeningCompleted': {
      const d = event.data;
      const remaining = (s.pendingScreenings[d.requestId] ?? []).filter((l) => l !== d.list);
      const pending = { ...s.pendingScreenings };
      if (remaining.length > 0) pending[d.requestId] = remaining;
      else delete pending[d.requestId];
      return {
        ...s,
        pendingScreenings: pending,
        screening: { ...s.screening, [d.list]: { matched: d.matched, hitKeys: hitKeys(d.hits) } },
      };
    }
    case 'ScreeningHitDecided': {
      const d = event.data;
      const decided = { ...(s.screeningDecisions[d.list] ?? {}), [hitKey(d)]: d.decision };
      return { ...s, screeningDecisions: { ...s.screeningDecisions, [d.list]: decided } };
    }
    case 'CustomerCommandRejected':
      return { ...s, recentCorrelations: remember(s.recentCorrelations, event.correlationId) };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
