export { CriClient, CriError, CRI_CLIENT_API_VERSION, endpointToTarget, grpcCodeName, nanosToDate } from './client';
export type { CriClientOptions } from './client';
export type * from './types';
export { serviceClientsFromJson } from './service-from-json';
export type { ProtoJson, ProtoConversion } from './service-from-json';
