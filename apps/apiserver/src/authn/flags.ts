// The authentication flags this module reads (kube-apiserver's names); `--anonymous-auth` is the server's.
import { types, type FlagSet } from '@cl/flags';

const SECTION = 'Authentication flags';

export function addAuthenticationFlags(fs: FlagSet): FlagSet {
  return fs
    .add({ name: 'authentication-config', type: types.string, default: '', section: SECTION, usage: 'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Note: This feature is in Alpha since v1.29.--feature-gate=StructuredAuthenticationConfiguration=true needs to be set for enabling this feature.This feature is mutually exclusive with the oidc-* flags.' })
    .add({ name: 'client-ca-file', type: types.string, default: '', section: SECTION, usage: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.' });
}
