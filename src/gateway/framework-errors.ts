/**
 * Errors raised before any route runs, answered as problems like every other error: by Node's
 * HTTP parser (headers too large, a request it cannot read) and by Fastify's router (bad
 * percent-encoding, a path segment past maxParamLength). Their default answers were Fastify's
 * JSON, and the 414 quoted the path back.
 */
import { STATUS_CODES } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, problemDocument, sendProblem, toApiError } from './problems.js';

function clientProblem(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new ApiError('header_fields_too_large', 'The request line and headers together are larger than the gateway accepts.');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout', 'The request was not received in time.');
  return new ApiError('malformed_request', 'The request is not valid HTTP.');
}

/**
 * Node's clientError: there is no request to answer through, so the problem is written to the
 * socket, which is then closed. The Host header was not read: without a configured public
 * address, its `type` is on the address the client connected to, absolute like every other.
 */
export function clientErrorAnswerer(typeBase: string | undefined): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => answerClientError(typeBase, error, socket);
}

function answerClientError(typeBase: string | undefined, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const problem = clientProblem(error);
    const body = JSON.stringify(problemDocument(typeBase ?? localBase(socket), problem.status, problem.code, problem.message));
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function localBase(socket: Duplex): string {
  const { localAddress = '127.0.0.1', localPort } = socket as Socket;
  const host = isIPv6(localAddress) ? `[${localAddress}]` : localAddress;
  return `${socket instanceof TLSSocket ? 'https' : 'http'}://${host}:${localPort}`;
}

/** Fastify's frameworkErrors: the router's refusals, with no route to carry them. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toApiError(error);
  if (problem.code === 'internal_error') request.log.error({ err: error }, 'request failed');
  void sendProblem(request, reply, problem);
}
