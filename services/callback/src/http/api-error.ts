import { ServiceUnavailableError } from '@crs/http';

/** The API is not served yet: the service is starting (its store is not connected). */
export class CallbackApiStartingError extends ServiceUnavailableError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'The callback service is starting. Retry later.');
  }
}
