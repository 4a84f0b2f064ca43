// ObjectMeta rules every kind shares (upstream's ValidateObjectMeta / ValidateObjectMetaUpdate), with the kind's
// own name rule (DNS subdomain unless its strategy says otherwise).
import { validateObjectMeta, validateObjectMetaUpdate, type FieldError, type ObjectMeta } from '@cl/apimachinery';
import type { Strategy } from './strategy';

export function validateMetadata(meta: ObjectMeta, namespaced: boolean, strategy: Strategy): FieldError[] {
  return validateObjectMeta(meta, { namespaced, nameValidator: strategy.nameValidator });
}

export function validateMetadataUpdate(meta: ObjectMeta, old: ObjectMeta, namespaced: boolean, strategy: Strategy): FieldError[] {
  return [...validateObjectMeta(meta, { namespaced, nameValidator: strategy.nameValidator }), ...validateObjectMetaUpdate(meta, old)];
}
