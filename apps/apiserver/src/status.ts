// meta.k8s.io Status responses as kube-apiserver writes them (compact JSON, pretty for curl/wget/browsers
// or ?pretty=true), so kubectl prints its usual `Error from server (...)` messages. The writers are the resource
// API's (@cl/registry), shared by every handler.
import { statusFailure, type Status, type StatusDetails } from '@cl/apimachinery';

export { writeJson, writeStatus } from '@cl/registry';
export type { StatusDetails };
export type StatusBody = Status;

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): StatusBody {
  return statusFailure(code, reason, message, details);
}

export const statuses = {
  unauthorized: () => statusBody(401, 'Unauthorized', 'Unauthorized'),
  internal: (message: string) => statusBody(500, 'InternalError', `Internal error occurred: ${message}`, {}),
  notFound: () => statusBody(404, 'NotFound', 'the server could not find the requested resource', {}),
  badRequest: (message: string) => statusBody(400, 'BadRequest', message, {}),
};
