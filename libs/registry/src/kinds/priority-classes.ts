// Priority classes as upstream's registry treats them: user classes stay below the system range and may not
// take the system- prefix, the value never changes, and at most one class is the global default.
import { fieldErrors, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';

export const SYSTEM_PRIORITY_CLASSES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };
const HIGHEST_USER_PRIORITY = 1000000000;

interface PriorityClassFields {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

const pc = (o: KubeObject) => o as KubeObject & PriorityClassFields;

function validatePriorityClass(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = o.metadata?.name ?? '';
  const system = SYSTEM_PRIORITY_CLASSES[name];
  if (system !== undefined) {
    if (pc(o).value !== system) errs.push(fieldErrors.forbidden('value', `value of system priority class ${name} must be ${system}`));
  } else {
    if (name.startsWith('system-')) errs.push(fieldErrors.forbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
    if ((pc(o).value ?? 0) > HIGHEST_USER_PRIORITY) errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  const policy = pc(o).preemptionPolicy;
  if (policy && policy !== 'PreemptLowerPriority' && policy !== 'Never') errs.push(fieldErrors.notSupported('preemptionPolicy', policy, ['Never', 'PreemptLowerPriority']));
  return errs;
}

export const priorityClassStrategy: Strategy = {
  validate: validatePriorityClass,
  validateUpdate(o, old) {
    const errs = validatePriorityClass(o);
    if (pc(o).value !== pc(old).value) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
    if ((pc(o).preemptionPolicy ?? 'PreemptLowerPriority') !== (pc(old).preemptionPolicy ?? 'PreemptLowerPriority')) errs.push(fieldErrors.invalid('preemptionPolicy', pc(o).preemptionPolicy, 'field is immutable'));
    return errs;
  },
  table: {
    columns: [column('Value', 'integer', 'The priority'), column('Global-Default', 'boolean', 'Whether pods without a class get this one'), AGE, column('PreemptionPolicy', 'string', 'Whether pods of this class preempt others')],
    cells: (o, now) => [pc(o).value ?? 0, pc(o).globalDefault ?? false, ageOf(o, now), pc(o).preemptionPolicy ?? 'PreemptLowerPriority'],
  },
};
