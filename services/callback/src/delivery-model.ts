// The documents of the callback service's delivery log and queue (its own database, decision 0017).
export interface DeliveryAttempt {
  at: Date;
  status: number | null;
  ms: number;
  error?: string;
}

/** The CloudEvent a delivery sends (the shape of `@crs/contracts` CloudEvent, kept structural here). */
export interface DeliveryCloudEvent {
  specversion: string;
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype?: string;
  data: Record<string, unknown>;
}

/** One event for one endpoint: what is sent, its state and its delivery log. */
export interface DeliveryDoc {
  _id: string;
  eventId: string;
  endpointId: string;
  url: string;
  businessUnit: string;
  communicationNumber: string;
  customerExtId: string;
  streamId: string;
  streamVersion: number;
  cloudEvent: DeliveryCloudEvent;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt?: Date;
  log: DeliveryAttempt[];
  /**
   * On a delivery a claim returned: that claim's token (decision 0072), so the attempt's outcome moves
   * only the entry this claim leased (not a redelivery written meanwhile). Never stored in the log.
   */
  claim?: string;
}

/**
 * A pending delivery in the queue: only what a dispatch round needs to choose (lane and due time).
 * Entries exist only while their delivery is pending, so a poll reads what is pending, not the whole
 * delivery history.
 */
export interface QueueEntry {
  _id: string;
  streamId: string;
  endpointId: string;
  streamVersion: number;
  nextAttemptAt: Date;
  /** Attempts made so far in the current budget (reset by a redelivery). */
  attempts: number;
  /**
   * Set by a redelivery (decision 0067): the claim takes the delivery back in the log (status `pending`)
   * when the log still says it ended, instead of dropping the entry, and then removes the mark.
   */
  redelivery?: boolean;
  /** The token of the claim that leased the entry last (decision 0072): a claim reads back what it won. */
  claim?: string;
}

export type NewDelivery = Omit<DeliveryDoc, 'status' | 'attempts' | 'log' | 'createdAt'>;

/**
 * A delivery as `callback_deliveries` stores it: the CloudEvent as one JSON string (decision 0042). The
 * store never queries inside it, and FerretDB's cost of a document grows with its fields: a risk
 * assessment's CloudEvent has about 260 (its explanation), so stored as an object it made the log's
 * `insertMany` about three times slower. Documents written before keep the object; readers take both.
 */
export type StoredDelivery = Omit<DeliveryDoc, 'cloudEvent'> & { cloudEvent: string | DeliveryCloudEvent };

/**
 * Where a delivery taken straight from a consumed batch stands when its batch is written
 * (`recordBatch`): `attempt` is the attempt made from the batch, if any; a `pending` one gets a queue
 * entry due at `nextAttemptAt` (a retry, a delivery waiting behind an earlier one, or an attempt still
 * running, whose entry is leased until its timeout has passed).
 */
export interface BatchOutcome {
  delivery: NewDelivery;
  status: DeliveryDoc['status'];
  /** Attempts made so far (0 when none was made from the batch). */
  attempts: number;
  attempt?: DeliveryAttempt;
  nextAttemptAt: Date;
}

/** An attempt of a claimed delivery as `recordAttempts` writes it: the delivery, the attempt, what comes next. */
export interface RecordedAttempt {
  delivery: DeliveryDoc;
  attempt: DeliveryAttempt;
  next: { status: DeliveryDoc['status']; nextAttemptAt?: Date };
}

export interface RedeliverFilter {
  eventIds?: string[];
  businessUnit?: string;
  communicationNumber?: string;
  /** Only dead-lettered deliveries (default); false takes the chosen ones whatever their state. */
  deadOnly?: boolean;
}
