// How a node agent's error answer reaches the caller (upstream's GenericHttpResponseChecker): a 400 keeps the
// agent's text as a BadRequest, a 500 becomes an internal error, anything else the generic server-response
// Status naming the subresource.
import { statusFailure, type Status } from '@cl/apimachinery';

const GENERIC: Record<number, [reason: string, message: string]> = {
  404: ['NotFound', 'the server could not find the requested resource'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

export function agentErrorStatus(code: number, resource: string, name: string, body: string): Status {
  if (code === 400) return statusFailure(400, 'BadRequest', body);
  if (code === 500) return statusFailure(500, 'InternalError', `Internal error occurred: ${body}`, { causes: [{ reason: '', message: body }] });
  // A 403 keeps the agent's words: they say who may not do what.
  const [reason, generic] = code === 403 ? ['Forbidden', body] : (GENERIC[code] ?? ['', `the server responded with the status code ${code} but did not return more information`]);
  return statusFailure(code, reason, `${generic} ( ${resource} ${name})`, { name, kind: resource, causes: [{ reason: 'UnexpectedServerResponse', message: body }] });
}
