import { CustomerStateSnapshotContract } from '@crs/messaging';
import { SNAPSHOT_SUBJECT, SNAPSHOT_TYPE, snapshotSchema } from './state-snapshots';

// The AsyncAPI document (packages/messaging/src/asyncapi.ts) describes the snapshot topic with its own
// copy of the snapshot's contract: packages cannot import a service. This keeps the copy exact.
describe('the snapshot topic in the AsyncAPI document', () => {
  it('has the decider’s message type, subject and schema', () => {
    expect(CustomerStateSnapshotContract).toEqual({
      type: SNAPSHOT_TYPE,
      subject: SNAPSHOT_SUBJECT,
      schema: snapshotSchema,
    });
  });
});
