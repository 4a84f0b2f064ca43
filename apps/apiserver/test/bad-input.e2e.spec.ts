// Bad command lines end with every error named and exit 1, before any port is bound.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { freePort } from '@cl/testing';
import { MAIN, httpsGet } from './harness';

jest.setTimeout(60_000);

function run(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('flag errors', () => {
  test.each([
    [['--secure-port=abc'], 'Error: invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--livez-grace-period=soon'], 'Error: invalid argument "soon" for "--livez-grace-period" flag: time: invalid duration "soon"'],
    [['--no-such-flag'], 'Error: unknown flag: --no-such-flag'],
    [['--livez-grace-period=-1s'], 'Error: --livez-grace-period can not be a negative value'],
    [['--shutdown-delay-duration=-5s'], 'Error: --shutdown-delay-duration can not be negative value'],
    [['--secure-port=0'], 'Error: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0'],
    [['--bind-address=nowhere'], 'Error: invalid argument "nowhere" for "--bind-address" flag:'],
    [['--tls-cert-file=/x.crt'], 'Error: --tls-cert-file and --tls-private-key-file must be specified together'],
    [['--store-servers=ftp://x'], 'Error: --store-servers: invalid URL "ftp://x": scheme must be http or https'],
    [['extra'], 'Error: unknown command "extra" for "apiserver"'],
    [['--enable-admission-plugins=Bogus'], 'Error: enable-admission-plugins plugin "Bogus" is unknown'],
    [['--enable-admission-plugins=PodSecurity'], 'Error: enable-admission-plugins plugin "PodSecurity" is not supported by this server (supported: NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction, TaintNodesByCondition, Priority, DefaultTolerationSeconds, ResourceQuota)'],
    [['--enable-admission-plugins=NamespaceLifecycle', '--disable-admission-plugins=NamespaceLifecycle'], 'Error: NamespaceLifecycle in enable-admission-plugins and disable-admission-plugins overlapped'],
    [['--event-ttl=10ms'], 'Error: --event-ttl must be at least 1s, got 10ms'],
    [['--kubelet-client-certificate=/x.crt'], 'Error: --kubelet-client-certificate and --kubelet-client-key must be specified together'],
    [['--kubelet-preferred-address-types=InternalIP,Public'], 'Error: --kubelet-preferred-address-types: unsupported value "Public": supported values: "Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"'],
    [['--kubelet-timeout=0s'], 'Error: --kubelet-timeout must be greater than 0, got 0s'],
    [['--kubelet-client-certificate=/nonexistent/c.crt', '--kubelet-client-key=/nonexistent/c.key'], 'Error: kubelet client: ENOENT: no such file or directory'],
    [['--enable-scheduler=maybe'], 'Error: invalid argument "maybe" for "--enable-scheduler" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ])('%j', (args, message) => {
    const r = run(args as string[]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
  });

  test('every error is reported at once', () => {
    const r = run(['--secure-port=abc', '--livez-grace-period=soon', '--bogus']);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('Error: '))).toHaveLength(3);
  });

  test('nothing is bound when validation fails', async () => {
    const port = await freePort();
    const r = run([`--secure-port=${port}`, '--livez-grace-period=-1s']);
    expect(r.status).toBe(1);
    await expect(httpsGet({ port }, '/livez')).rejects.toThrow(/ECONNREFUSED/);
  });

  test('a port in use says so', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run([`--secure-port=${port}`, '--bind-address=127.0.0.1', '--data-dir=/tmp/cl-bad-input', '--cert-dir=/tmp/cl-bad-input/certs']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`failed to listen on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use`);
    } finally {
      blocker.close();
    }
  });

  test('--help lists the flags by section; --version prints the version', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Secure serving flags:');
    expect(help.stdout).toMatch(/--secure-port int\s+The port on which to serve HTTPS/);
    expect(help.stdout).toContain('Scheduler flags:\n\n      --enable-scheduler   Run the scheduler (@cl/scheduler) in this process; turn it off to run a scheduler elsewhere. (default true)\n');
    const v = run(['--version']);
    expect([v.status, v.stdout]).toEqual([0, expect.stringMatching(/^Kubernetes v1\.33\.0/)]);
  });
});
