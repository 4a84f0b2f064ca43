// Field errors of pod and container securityContext and of probes, worded as upstream's ValidatePodCreate words them, so a
// static pod asking for something the runtime cannot be given is refused rather than run differently.
import { FieldPath, fieldErrors } from '@cl/apimachinery';
import type { Container, Pod } from './api-types';

const MAX_ID = 2147483647;
const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

interface Profile {
  type?: string;
  localhostProfile?: string;
}

function validateId(v: unknown, p: FieldPath, errs: Error[]) {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_ID) errs.push(fieldErrors.invalid(p, v, `must be between 0 and ${MAX_ID}, inclusive`));
}

function validateProfile(profile: Profile | undefined, p: FieldPath, kind: 'seccomp' | 'AppArmor', errs: Error[]) {
  if (!profile) return;
  if (!profile.type) errs.push(fieldErrors.required(p.child('type')));
  else if (!PROFILE_TYPES.includes(profile.type)) errs.push(fieldErrors.notSupported(p.child('type'), profile.type, PROFILE_TYPES));
  if (profile.type === 'Localhost' && !profile.localhostProfile) {
    errs.push(fieldErrors.required(p.child('localhostProfile'), `must be set when ${kind} type is Localhost`));
  }
  if (profile.type !== 'Localhost' && profile.localhostProfile) {
    errs.push(fieldErrors.invalid(p.child('localhostProfile'), profile.localhostProfile, `can only be set when ${kind} type is Localhost`));
  }
}

export function validatePodSecurity(pod: Pod, spec: FieldPath, errs: Error[]): void {
  const sc = (pod.spec.securityContext ?? {}) as Record<string, unknown>;
  const p = spec.child('securityContext');
  validateId(sc.runAsUser, p.child('runAsUser'), errs);
  validateId(sc.runAsGroup, p.child('runAsGroup'), errs);
  validateId(sc.fsGroup, p.child('fsGroup'), errs);
  ((sc.supplementalGroups as unknown[]) ?? []).forEach((g, i) => validateId(g, p.child('supplementalGroups').index(i), errs));
  validateProfile(sc.seccompProfile as Profile, p.child('seccompProfile'), 'seccomp', errs);
  validateProfile(sc.appArmorProfile as Profile, p.child('appArmorProfile'), 'AppArmor', errs);
  const seen = new Set<string>();
  ((sc.sysctls as Array<{ name?: string; value?: string }>) ?? []).forEach((s, i) => {
    const sp = p.child('sysctls').index(i);
    if (!s.name) errs.push(fieldErrors.required(sp.child('name')));
    else if (s.name.length > 253 || !SYSCTL_NAME.test(s.name)) {
      errs.push(fieldErrors.invalid(sp.child('name'), s.name, `must have at most 253 characters and match regex ${SYSCTL_NAME.source}`));
    } else if (seen.has(s.name)) errs.push(fieldErrors.duplicate(sp.child('name'), s.name));
    seen.add(s.name ?? '');
  });
}

export function validateContainerSecurity(pod: Pod, c: Container, p: FieldPath, errs: Error[]): void {
  const sc = (c.securityContext ?? {}) as Record<string, unknown>;
  const sp = p.child('securityContext');
  validateId(sc.runAsUser, sp.child('runAsUser'), errs);
  validateId(sc.runAsGroup, sp.child('runAsGroup'), errs);
  validateProfile(sc.seccompProfile as Profile, sp.child('seccompProfile'), 'seccomp', errs);
  validateProfile(sc.appArmorProfile as Profile, sp.child('appArmorProfile'), 'AppArmor', errs);
  if (sc.privileged === true && sc.allowPrivilegeEscalation === false) {
    errs.push(fieldErrors.invalid(sp, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  const caps = (sc.capabilities ?? {}) as { add?: unknown; drop?: unknown };
  if (sc.allowPrivilegeEscalation === false && Array.isArray(caps.add) && caps.add.includes('CAP_SYS_ADMIN')) {
    errs.push(fieldErrors.invalid(sp, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  if (sc.procMount !== undefined) {
    if (sc.procMount !== 'Default' && sc.procMount !== 'Unmasked') errs.push(fieldErrors.notSupported(sp.child('procMount'), sc.procMount, ['Default', 'Unmasked']));
    // Unmasked /proc is only safe inside a user namespace.
    else if (sc.procMount === 'Unmasked' && (pod.spec as { hostUsers?: boolean }).hostUsers !== false) {
      errs.push(fieldErrors.invalid(sp.child('procMount'), sc.procMount, '`hostUsers` must be false to use `Unmasked`'));
    }
  }
}

const PROBES = [
  ['livenessProbe', 'liveness'],
  ['readinessProbe', 'readiness'],
  ['startupProbe', 'startup'],
] as const;
const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

/** Probes as ValidateProbe words them: one handler, non-negative timings, successThreshold 1 where it must be. */
export function validateContainerProbes(c: Container, p: FieldPath, errs: Error[]): void {
  for (const [field, kind] of PROBES) {
    const probe = (c as Record<string, unknown>)[field] as Record<string, unknown> | undefined;
    if (!probe) continue;
    const pp = p.child(field);
    const handlers = HANDLERS.filter((h) => probe[h] !== undefined);
    if (handlers.length === 0) errs.push(fieldErrors.required(pp, 'must specify a handler type'));
    else if (handlers.length > 1) errs.push(fieldErrors.forbidden(pp.child(handlers[1]), 'may not specify more than 1 handler type'));
    for (const t of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
      const v = probe[t];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) errs.push(fieldErrors.invalid(pp.child(t), v, 'must be greater than or equal to 0'));
    }
    if (kind !== 'readiness' && probe.successThreshold !== undefined && probe.successThreshold !== 1) {
      errs.push(fieldErrors.invalid(pp.child('successThreshold'), probe.successThreshold, 'must be 1'));
    }
    if (kind === 'readiness' && probe.terminationGracePeriodSeconds !== undefined) {
      errs.push(fieldErrors.invalid(pp.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
    }
    const grpc = probe.grpc as { port?: unknown } | undefined;
    if (grpc && (typeof grpc.port !== 'number' || grpc.port < 1 || grpc.port > 65535)) {
      errs.push(fieldErrors.invalid(pp.child('grpc', 'port'), grpc.port, 'must be between 1 and 65535, inclusive'));
    }
  }
}

/** postStart/preStop: one handler each (sleep's seconds non-negative), as ValidateLifecycle words it. */
export function validateContainerLifecycle(c: Container, p: FieldPath, errs: Error[]): void {
  const lifecycle = (c as Record<string, unknown>).lifecycle as Record<string, Record<string, unknown> | undefined> | undefined;
  for (const hook of ['postStart', 'preStop']) {
    const h = lifecycle?.[hook];
    if (!h) continue;
    const hp = p.child('lifecycle', hook);
    const handlers = ['exec', 'httpGet', 'tcpSocket', 'sleep'].filter((k) => h[k] !== undefined);
    if (handlers.length === 0) errs.push(fieldErrors.required(hp, 'must specify a handler type'));
    else if (handlers.length > 1) errs.push(fieldErrors.forbidden(hp.child(handlers[1]), 'may not specify more than 1 handler type'));
    const sleep = h.sleep as { seconds?: unknown } | undefined;
    if (sleep && (typeof sleep.seconds !== 'number' || sleep.seconds < 0)) errs.push(fieldErrors.invalid(hp.child('sleep', 'seconds'), sleep.seconds, 'must be non-negative'));
  }
}
