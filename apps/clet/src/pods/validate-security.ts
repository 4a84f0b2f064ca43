// Field errors of pod and container securityContext, worded as upstream's ValidatePodCreate words them, so a
// static pod asking for something the runtime cannot be given is refused rather than run differently.
import { FieldPath, fieldErrors } from '@cl/config';
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
