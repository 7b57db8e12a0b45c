import { SchemaRegistry, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { CodedError } from '@crs/runtime';

export interface RegistrySettings {
  SCHEMA_REGISTRY_URL: string;
  SCHEMA_REGISTRY_USERNAME: string;
  SCHEMA_REGISTRY_PASSWORD: string;
}

export interface SchemaDoc {
  title: string;
  $id?: string;
  [k: string]: unknown;
}

/**
 * The registry's copy of a message schema is declared draft-07: Apicurio's JSON Schema compatibility
 * checker cannot read 2020-12 ("could not determine version") and would refuse every evolution.
 * Message schemas use only keywords both drafts share; the HTTP schemas (2020-12) are never registered.
 */
export const REGISTRY_JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

/**
 * A fresh Ajv per compiled schema: the registry client compiles each schema id once, and two versions of
 * one contract may share an $id, which a shared Ajv instance would refuse.
 */
const ajvFactory = {
  compile(schema: object) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    return ajv.compile(schema);
  },
  addSchema() {
    return undefined;
  },
};

/** A consumed message that is not a JSON object in the Confluent wire format (the poison path takes it). */
export class MessageUndecodableError extends CodedError {
  constructor(reason: string) {
    super(
      'MESSAGE_UNDECODABLE',
      `message is not a JSON object in the schema registry wire format: ${reason}`,
    );
  }
}

/** A payload refused by its message type's schema as it is produced (a defect of the producer). */
export class MessageInvalidError extends CodedError {
  constructor(
    readonly type: string,
    /** Where the payload breaks its schema: JSON pointers into it (no values: they may be personal). */
    readonly paths: string[],
  ) {
    super('MESSAGE_INVALID', `${type} does not match its registered schema at ${paths.join(', ') || '/'}`);
  }
}

/** Length of the Confluent wire header: magic byte 0, then the schema id as a 4-byte big-endian integer. */
export const WIRE_HEADER_BYTES = 5;

/**
 * A JSON document in the Confluent wire format (magic byte 0, the schema id, the UTF-8 text), written into
 * one buffer (decision 0085): the registry client builds the text's buffer, a 4-byte one for the id and a
 * third that concatenates them, for every message produced.
 */
export function wireFormat(schemaId: number, json: string): Buffer {
  const buffer = Buffer.allocUnsafe(WIRE_HEADER_BYTES + Buffer.byteLength(json, 'utf8'));
  buffer[0] = 0;
  buffer.writeInt32BE(schemaId, 1);
  buffer.write(json, WIRE_HEADER_BYTES, 'utf8');
  return buffer;
}

/**
 * Reads a message in the Confluent wire format without the registry: magic byte 0, a 4-byte schema id,
 * then the JSON document, which must be an object. Throws `MessageUndecodableError` otherwise.
 */
export function parseWireFormat<T>(buffer: Buffer): T {
  if (buffer.length <= WIRE_HEADER_BYTES) throw new MessageUndecodableError('shorter than the header');
  if (buffer[0] !== 0) throw new MessageUndecodableError(`magic byte ${buffer[0]}`);
  let value: unknown;
  try {
    value = JSON.parse(buffer.toString('utf8', WIRE_HEADER_BYTES));
  } catch {
    throw new MessageUndecodableError('the payload is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MessageUndecodableError('the payload is not a JSON object');
  return value as T;
}

/**
 * JSON Schema serialization through a Confluent-compatible registry (Apicurio's ccompat API or Confluent).
 * Each message type is its own subject (`crs.<kind>.<Type>`), so one topic carries several types and
 * each type evolves under BACKWARD compatibility on its own. Payloads are validated against their schema
 * when they are produced (`encode`); every producer of our topics encodes through it, so `decode` only
 * parses the wire format (no registry round trip, no second validation per consumer group: decision
 * 0013). Topics written by systems outside this repository are read with `decodeValidated`.
 */
export class MessageSerde {
  private readonly registry: SchemaRegistry;
  /**
   * Each registered type's schema id and the schema it registered; its validator compiled at the type's first
   * message (a service registers every type and produces a few).
   */
  private readonly byType = new Map<string, { id: number; body: object; validate?: ValidateFunction }>();

  constructor(settings: RegistrySettings) {
    const auth = settings.SCHEMA_REGISTRY_USERNAME
      ? { username: settings.SCHEMA_REGISTRY_USERNAME, password: settings.SCHEMA_REGISTRY_PASSWORD }
      : undefined;
    this.registry = new SchemaRegistry(
      {
        host: settings.SCHEMA_REGISTRY_URL.replace(/\/$/, ''),
        ...(auth ? { auth } : {}),
        retry: { retries: 3 },
      },
      { [SchemaType.JSON]: { ajvInstance: ajvFactory as never } },
    );
  }

  static subjectFor(kind: 'events' | 'commands' | 'operations' | 'lists' | 'matrices', type: string): string {
    return `crs.${kind}.${type}`;
  }

  /** Registers (idempotently) the schema of a message type and remembers its id for encoding. */
  async register(subject: string, type: string, schema: SchemaDoc): Promise<number> {
    const { $id: _ignored, ...rest } = schema;
    const body = { ...rest, $schema: REGISTRY_JSON_SCHEMA_DRAFT };
    // Several services register the same subjects as they start; the client's read-then-set of the
    // compatibility rule can lose that race ("rule already exists"), after which a retry succeeds.
    for (let attempt = 1; ; attempt++) {
      try {
        const { id } = await this.registry.register(
          { type: SchemaType.JSON, schema: JSON.stringify(body) },
          { subject, compatibility: COMPATIBILITY.BACKWARD },
        );
        this.byType.set(type, { id, body });
        return id;
      } catch (err) {
        if (attempt >= 5 || !/already exists/i.test(String((err as Error)?.message))) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  /**
   * The payload validated against its type's registered schema and written in the wire format, at once
   * (decision 0085): the registry client's `encode` does the same through a promise and three buffers per
   * message. The validator is the one the client would compile (`ajvFactory`, the schema as registered).
   * Throws `MessageInvalidError` (MESSAGE_INVALID) with the failing paths.
   */
  encodeNow(type: string, payload: unknown): Buffer {
    const entry = this.byType.get(type);
    if (entry === undefined) throw new Error(`no schema registered for message type ${type}`);
    const validate = (entry.validate ??= ajvFactory.compile(entry.body));
    if (!validate(payload))
      throw new MessageInvalidError(
        type,
        (validate.errors ?? []).map((e) => e.instancePath || '/'),
      );
    return wireFormat(entry.id, JSON.stringify(payload));
  }

  async encode(type: string, payload: unknown): Promise<Buffer> {
    return this.encodeNow(type, payload);
  }

  /** The payload of a message of our own topics: the wire format parsed, not validated again. */
  async decode<T>(buffer: Buffer): Promise<T> {
    return parseWireFormat<T>(buffer);
  }

  /** The payload checked against the schema its id names in the registry (topics written by others). */
  async decodeValidated<T>(buffer: Buffer): Promise<T> {
    return (await this.registry.decode(buffer)) as T;
  }
}
