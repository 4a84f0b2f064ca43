// A throwaway CA and a 127.0.0.1 serving certificate, made with the openssl binary.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServingTls {
  ca: string;
  cert: string;
  key: string;
  cleanup(): void;
}

export function servingTls(): ServingTls {
  const dir = mkdtempSync(join(tmpdir(), 'cl-jwt-tls-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-days', '2', '-subj', '/CN=test-ca', '-keyout', 'ca.key', '-out', 'ca.crt', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
  run(['req', ...ec, '-subj', '/CN=localhost', '-keyout', 'srv.key', '-out', 'srv.csr']);
  writeFileSync(join(dir, 'srv.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-out', 'srv.crt', '-extfile', 'srv.ext']);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: read('ca.crt'), cert: read('srv.crt'), key: read('srv.key'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
