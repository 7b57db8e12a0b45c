import type { DecodedMessage } from '@crs/messaging';
import type { DecisionBook } from '../domain/suppression';
import type { ListMessage } from '../lists/list-messages';

/**
 * The projector of ScreeningDecisionRecorded into the decision book (the lists topic's other messages,
 * ListSnapshotLoaded, are this service's own announcements: nothing to fold).
 */
export function screeningDecisionRecordedProjector(
  book: DecisionBook,
): (message: DecodedMessage<ListMessage>) => void {
  return (m) => {
    if (m.value.type === 'ScreeningDecisionRecorded') book.record(m.value.data);
  };
}
