/**
 * The ingress's API errors are the shared ones of @crs/http; its own (C006, the retention hold, ...)
 * extend ApiError next to their routes. This module keeps the import path of app.ts.
 */
export { ApiError, RequestInvalidError, ResourceNotFoundError, ServiceUnavailableError } from '@crs/http';
