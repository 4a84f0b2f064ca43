import { ApiError, isAlreadyExists, isConflict, isGone, isInvalid, isNotFound, isResourceExpired } from './api-error';

const status = (code: number, reason: string, message = 'm') => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

test('a Status body is the error: code, reason and message from it', () => {
  const e = ApiError.fromResponse(404, Buffer.from(JSON.stringify(status(404, 'NotFound', 'configmaps "x" not found'))), 'GET', 'application/json');
  expect([e.code, e.reason, e.message, e.status.kind]).toEqual([404, 'NotFound', 'configmaps "x" not found', 'Status']);
  expect(e).toBeInstanceOf(Error);
});

// What client-go's NewGenericServerResponse infers when the body is not a Status.
test.each([
  [404, 'GET', 'text/plain', '404 page not found', 'NotFound', 'the server could not find the requested resource'],
  [409, 'POST', undefined, '', 'AlreadyExists', 'the server reported a conflict'],
  [409, 'PUT', undefined, '', 'Conflict', 'the server reported a conflict'],
  [422, 'POST', 'application/json', '{}', 'Invalid', 'the server rejected our request due to an error in our request'],
  [403, 'GET', 'text/plain', 'no way', 'Forbidden', 'no way'],
  [410, 'GET', 'text/plain', '', 'Gone', 'the server responded with the status code 410 but did not return more information'],
  [429, 'GET', 'text/plain', '', 'TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  [500, 'GET', 'text/plain', 'boom', 'InternalError', 'an error on the server ("boom") has prevented the request from succeeding'],
  [502, 'GET', 'application/octet-stream', '\u0000', 'InternalError', 'an error on the server ("unknown") has prevented the request from succeeding'],
  [418, 'GET', 'text/plain', 'teapot', '', 'the server responded with the status code 418 but did not return more information'],
])('HTTP %d to %s with %s %j -> %s', (code, method, contentType, body, reason, message) => {
  const e = ApiError.fromResponse(code, Buffer.from(body), method, contentType);
  expect([e.code, e.reason, e.message, e.status.code]).toEqual([code, reason, message, code]);
});

const err = (code: number, reason: string) => new ApiError(status(code, reason));
test.each([
  ['isNotFound', isNotFound, [err(404, 'NotFound'), err(404, '')], [err(404, 'Forbidden'), err(409, 'Conflict'), new Error('x'), null]],
  ['isConflict', isConflict, [err(409, 'Conflict'), err(409, '')], [err(409, 'AlreadyExists'), err(404, 'NotFound')]],
  ['isAlreadyExists', isAlreadyExists, [err(409, 'AlreadyExists')], [err(409, 'Conflict'), err(409, '')]],
  ['isInvalid', isInvalid, [err(422, 'Invalid')], [err(400, 'BadRequest')]],
  ['isGone', isGone, [err(410, 'Gone'), err(410, 'Expired'), err(410, '')], [err(404, 'NotFound'), undefined]],
  ['isResourceExpired', isResourceExpired, [err(410, 'Expired')], [err(410, 'Gone')]],
  // Duck-typed: an ApiError from another copy of the package counts.
  ['isNotFound (plain object)', isNotFound, [{ code: 404, reason: 'NotFound' }], [{ code: '404', reason: 'NotFound' }]],
])('%s', (_name, fn, yes, no) => {
  for (const e of yes) expect([e, fn(e)]).toEqual([e, true]);
  for (const e of no) expect([e, fn(e)]).toEqual([e, false]);
});
