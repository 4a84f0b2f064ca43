// Test PKI made with the real openssl binary: a CA, a server cert for 127.0.0.1 and client certs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  cert: string;
  key: string;
}

export class TestPki {
  readonly dir = mkdtempSync(join(tmpdir(), 'cl-pki-'));

  private ossl(args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: 'pipe' });
  }

  ca(name: string): KeyPair {
    this.ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    return this.read(name);
  }

  /** subject like `/CN=jane/O=dev/O=ops`; ext lines for an openssl extfile. */
  leaf(name: string, issuer: string, subject: string, ext: string[]): KeyPair {
    this.ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
    writeFileSync(join(this.dir, `${name}.ext`), ext.join('\n') + '\n');
    this.ossl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.crt`, '-CAkey', `${issuer}.key`, '-CAcreateserial', '-days', '1', '-out', `${name}.crt`, '-extfile', `${name}.ext`]);
    return this.read(name);
  }

  client(name: string, issuer: string, subject: string): KeyPair {
    return this.leaf(name, issuer, subject, ['extendedKeyUsage=clientAuth', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid']);
  }

  server(name: string, issuer: string): KeyPair {
    return this.leaf(name, issuer, '/CN=localhost', ['extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost']);
  }

  private read(name: string): KeyPair {
    return { cert: readFileSync(join(this.dir, `${name}.crt`), 'utf8'), key: readFileSync(join(this.dir, `${name}.key`), 'utf8') };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
