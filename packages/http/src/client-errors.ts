import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCodes, errorBody } from '@crs/contracts';

/** The answer to a request Node's HTTP parser refused, by the parser's error code. */
export function clientErrorAnswer(parserCode: string | undefined): {
  status: number;
  reason: string;
  code: string;
  message: string;
} {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: ErrorCodes.RequestHeadersTooLarge,
        // Node's limit, 16 KiB unless `--max-http-header-size` sets another.
        message: `The request line (the URL) and headers together are over ${maxHeaderSize / 1024} KiB`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        reason: 'Payload Too Large',
        code: ErrorCodes.PayloadTooLarge,
        message: 'The chunk extensions of the body are over the limit',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: ErrorCodes.RequestTimeout,
        message: 'The request did not arrive in time',
      };
    default:
      return {
        status: 400,
        reason: 'Bad Request',
        code: ErrorCodes.MalformedRequest,
        message: 'Not a well-formed HTTP/1.1 request',
      };
  }
}

/**
 * A `clientError` listener for an API's HTTP server: a request Node's parser refuses before any route
 * sees it (a URL and headers over 16 KiB, a malformed request line or header, a timeout) is answered
 * with the API's `ErrorBody` and a documented status, where Node answers with an empty body (the long
 * fuzz run found a 431 the OpenAPI document did not list). The connection is closed after the answer,
 * as Node does; a socket already answering, or gone, is only destroyed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  const a = clientErrorAnswer(err.code);
  const body = JSON.stringify(errorBody(a.code, a.message));
  socket.end(
    `HTTP/1.1 ${a.status} ${a.reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
