// A real squid (Debian's package) on a free loopback port: the second HTTP CONNECT proxy of the egress tests
// and the fast one of bench/egress. No cache, no access log; CONNECT only from 127.0.0.1.
import { startProxyProcess, type ProxyProcess } from './proxy-process';

export type Squid = ProxyProcess;

/** CONNECT is allowed only to `allowedConnectPorts` when given, to any port otherwise; squid answers others 403. */
export function startSquid(allowedConnectPorts: number[] = []): Promise<Squid> {
  return startProxyProcess({
    name: 'squid',
    config: (port, dir) =>
      [
        `http_port 127.0.0.1:${port}`,
        'acl local src 127.0.0.1/32',
        'acl CONNECT method CONNECT',
        ...(allowedConnectPorts.length > 0 ? [`acl allowed_ports port ${allowedConnectPorts.join(' ')}`, 'http_access deny CONNECT !allowed_ports'] : []),
        'http_access allow local',
        'http_access deny all',
        'cache deny all',
        'cache_mem 0 MB',
        'access_log none',
        'cache_store_log none',
        `cache_log ${dir}/cache.log`,
        `pid_filename ${dir}/squid.pid`,
        `coredump_dir ${dir}`,
        'cache_effective_user nobody',
        'pinger_enable off',
        'shutdown_lifetime 0 seconds',
        '',
      ].join('\n'),
    command: (conf) => ['squid', ['-N', '-f', conf]],
  });
}
